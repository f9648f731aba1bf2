/**
 * A blocking tool's handler is found by the shape of a tool definition, never by "an object with a
 * handler method" (an McpServer has one), and a blocking tool defined in the module that builds the
 * server is refused at registration with a message that says to move it into a module of its own.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpServer, ToolRegistrationError } from '../../lib/index.js';
import { findHandler } from '../../lib/tools/handler-export.js';

const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } as const;
const address = { toolName: 'fib', moduleUrl: 'file:///tools/fib.js', exportName: 'default' };

describe('a blocking tool is recognised by its own shape', () => {
  it('finds a definition by name, schema and handler, or a handler function', () => {
    const handler = () => 'ok';
    assert.equal(findHandler({ default: { name: 'fib', inputSchema: schema, handler } }, address), handler);
    assert.equal(findHandler({ default: handler }, address), handler);
    assert.equal(findHandler({ other: { name: 'fib', inputSchema: schema, handler } }, address), handler);
  });

  it('refuses a server, or an object with a handler method and no name, as the default export', () => {
    const server = new McpServer({ name: 'x', version: '1' });
    assert.throws(
      () => findHandler({ default: server }, address),
      /holds a McpServer, not a tool definition/,
    );
    assert.throws(
      () => findHandler({ default: { handler: () => 'x' } }, address),
      /holds no tool definition/,
    );
    assert.throws(
      () => findHandler({ default: { name: 'other', inputSchema: schema, handler: () => 'x' } }, address),
      /holds the definition of tool "other"/,
    );
  });

  it('refuses at listen a blocking tool whose module exports a server', async () => {
    const server = new McpServer({ name: 'x', version: '1' }).tool({
      name: 'fib',
      inputSchema: schema,
      blocking: true,
      module: new URL('./fixtures/server-default-export.js', import.meta.url),
      handler: ({ n }) => String(n),
    });
    await assert.rejects(
      server.listen({ handleSignals: false }),
      (error: Error) =>
        error instanceof ToolRegistrationError &&
        /holds a McpServer, not a tool definition/.test(error.message),
    );
    await server.close();
  });
});

describe('a blocking tool defined in the module that builds the server', () => {
  it('is refused at registration, saying to move it into a module of its own', async () => {
    await assert.rejects(
      import('./fixtures/inline-blocking-server.js'),
      (error: Error) =>
        error instanceof ToolRegistrationError &&
        error.message.includes(
          'Tool "fib": a blocking tool cannot be defined in the module that builds the server',
        ) &&
        error.message.includes('Move the tool into a module of its own'),
    );
  });

  it('is refused when the test module itself builds the server', () => {
    assert.throws(
      () =>
        new McpServer({ name: 'x', version: '1' }).tool({
          name: 'fib',
          inputSchema: schema,
          blocking: true,
          module: import.meta.url,
          handler: ({ n }) => String(n),
        }),
      /Move the tool into a module of its own/,
    );
  });

  it('is accepted from a module of its own', () => {
    assert.doesNotThrow(() =>
      new McpServer({ name: 'x', version: '1' }).tool({
        name: 'fib',
        inputSchema: schema,
        blocking: true,
        module: new URL('../support/fixture-tools.js', import.meta.url),
        handler: ({ n }) => String(n),
      }),
    );
  });
});
