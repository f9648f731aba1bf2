import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpServer, ToolRegistrationError } from '../../lib/index.js';
import { busy } from '../support/fixture-tools.js';

const server = () => new McpServer({ name: 't', version: '1' });
const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } as const;

describe('tool registration refuses mistakes with a message that says what to fix', () => {
  it('refuses a duplicate name', () => {
    const s = server().tool({ name: 'a', inputSchema: schema, handler: () => 'x' });
    assert.throws(() => s.tool({ name: 'a', inputSchema: schema, handler: () => 'y' }), /already registered/);
  });

  it('refuses names outside 1..128 characters of [A-Za-z0-9_.-]', () => {
    for (const name of ['', 'has space', 'slash/name', 'x'.repeat(129), 'émoji']) {
      assert.throws(
        () => server().tool({ name, inputSchema: schema, handler: () => 'x' }),
        (error: Error) => error instanceof ToolRegistrationError && /1 to 128 characters/.test(error.message),
        name,
      );
    }
    assert.doesNotThrow(() => server().tool({ name: 'A-z_0.9', inputSchema: schema, handler: () => 'x' }));
    assert.doesNotThrow(() =>
      server().tool({ name: 'x'.repeat(128), inputSchema: schema, handler: () => 'x' }),
    );
  });

  it('refuses an input schema that is not an object schema, or does not compile', () => {
    assert.throws(
      () => server().tool({ name: 'a', inputSchema: { type: 'string' } as never, handler: () => 'x' }),
      /must describe an object/,
    );
    assert.throws(
      () =>
        server().tool({
          name: 'a',
          inputSchema: { type: 'object', properties: { n: { type: 'nonsense' } } },
          handler: () => 'x',
        } as never),
      /does not compile as JSON Schema 2020-12/,
    );
  });

  it('refuses an invalid output schema', () => {
    assert.throws(
      () =>
        server().tool({
          name: 'a',
          inputSchema: schema,
          outputSchema: { type: 'object', required: 'n' },
          handler: () => ({}),
        } as never),
      /outputSchema does not compile/,
    );
  });

  it('refuses unknown option keys (a typo like blockng)', () => {
    assert.throws(
      // @ts-expect-error the type system refuses the typo too
      () => server().tool({ name: 'a', inputSchema: schema, blockng: true, handler: () => 'x' }),
      /unknown option "blockng"/,
    );
  });

  it('refuses a blocking tool without a module, or with a module that does not exist', () => {
    assert.throws(
      () => server().tool({ name: 'a', inputSchema: schema, blocking: true } as never),
      /needs module: import.meta.url/,
    );
    assert.throws(
      () =>
        server().tool({
          name: 'a',
          inputSchema: schema,
          blocking: true,
          module: new URL('./no-such-module.js', import.meta.url),
        }),
      /does not exist/,
    );
    assert.doesNotThrow(() => server().tool(busy));
  });

  it('refuses at listen() a blocking tool whose module does not export its handler', async () => {
    const s = server().tool({
      name: 'ghost',
      inputSchema: schema,
      blocking: true,
      module: new URL('../support/fixture-tools.js', import.meta.url),
      export: 'noSuchExport',
    });
    await assert.rejects(s.listen({ handleSignals: false }), /Tool "ghost": .* has no export "noSuchExport"/);
    const fine = server().tool(busy);
    await fine.listen({ handleSignals: false });
    await fine.close();
  });

  it('refuses structured failure content that breaks the output schema', () => {
    const outputSchema = {
      type: 'object',
      properties: { ok: { type: 'boolean' } },
      required: ['ok'],
    } as const;
    assert.throws(
      () =>
        server().tool({
          name: 'a',
          inputSchema: schema,
          outputSchema,
          structuredFailure: { timeout: { ok: 'no' } as never },
          handler: () => ({ ok: true }),
        }),
      /structuredFailure.timeout does not match the outputSchema/,
    );
  });

  it('refuses a structuredFailure or a tools/list entry that cannot be sent as JSON', () => {
    const cyclic: Record<string, unknown> = { ok: false };
    cyclic.self = cyclic;
    assert.throws(
      () =>
        server().tool({
          name: 'a',
          inputSchema: schema,
          outputSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
          structuredFailure: { error: cyclic as never },
          handler: () => ({ ok: true }),
        }),
      /structuredFailure.error cannot be sent as JSON: it refers to itself/,
    );
    assert.throws(
      () =>
        server().tool({
          name: 'a',
          inputSchema: schema,
          _meta: { version: 2n },
          handler: () => 'x',
        } as never),
      /tools\/list entry cannot be sent as JSON: a BigInt at _meta.version/,
    );
  });

  it('refuses bad numbers for timeoutMs and concurrency', () => {
    assert.throws(
      () => server().tool({ name: 'a', inputSchema: schema, timeoutMs: -1, handler: () => 'x' }),
      /timeoutMs/,
    );
    assert.throws(
      () => server().tool({ name: 'a', inputSchema: schema, concurrency: 0, handler: () => 'x' }),
      /concurrency/,
    );
  });

  it('refuses unknown server options', () => {
    assert.throws(
      () => new McpServer({ name: 'a', version: '1', timeoutMS: 5 } as never),
      /unknown option "timeoutMS"/,
    );
  });
});
