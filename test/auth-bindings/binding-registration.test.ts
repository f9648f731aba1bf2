/**
 * Scopes at registration and in the server's options: a scope outside `scopesSupported` fails when
 * the tool, prompt, resource or template is registered (with what to fix), a malformed one too, and
 * a mistyped option at construction. `listOutOfScope` lists everything while calls stay checked.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpServer, makePrincipal, ToolRegistrationError } from '../../lib/index.js';
import { InProcessClient } from '../support/in-process-client.js';

const make = (extra: Record<string, unknown> = {}) =>
  new McpServer({ name: 'scopes', version: '1', scopesSupported: ['files:read', 'files:write'], ...extra });

describe('scopes at registration', () => {
  it('refuses a scope the server does not support, for every kind of primitive, naming it', () => {
    const server = make();
    assert.throws(
      () =>
        server.tool({
          name: 'typo',
          inputSchema: { type: 'object' },
          scopes: ['files:wirte'],
          handler: () => 'x',
        }),
      (error: Error) =>
        error instanceof ToolRegistrationError &&
        /"files:wirte" are not in the server's scopesSupported/.test(error.message),
    );
    assert.throws(() => server.prompt({ name: 'p', scopes: ['nope'], get: () => 'x' }), /prompt "p".*"nope"/);
    assert.throws(
      () => server.resource({ uri: 'a://b', name: 'b', scopes: ['nope'], read: () => 'x' }),
      /resource "a:\/\/b".*"nope"/,
    );
    assert.throws(
      () => server.resourceTemplate({ uriTemplate: 'a://{x}', name: 'x', scopes: ['nope'], read: () => 'x' }),
      /template.*"nope"/,
    );
    // A supported scope registers.
    server.tool({ name: 'ok', inputSchema: { type: 'object' }, scopes: ['files:read'], handler: () => 'x' });
  });

  it('refuses malformed scopes with or without scopesSupported', () => {
    const server = new McpServer({ name: 'scopes', version: '1' });
    for (const scopes of ['files:read', [''], ['two words'], [7]]) {
      assert.throws(
        () =>
          server.tool({
            name: 'bad',
            inputSchema: { type: 'object' },
            scopes: scopes as never,
            handler: () => 'x',
          }),
        /scopes must be an array of OAuth scope names/,
      );
    }
  });

  it('checks the server options scopesSupported and listOutOfScope', () => {
    assert.throws(() => make({ scopesSupported: 'files:read' }), /scopesSupported must be an array/);
    assert.throws(() => make({ listOutOfScope: 'yes' }), /listOutOfScope must be true or false/);
  });
});

describe('listOutOfScope', () => {
  it('lists every tool to a principal lacking scopes, and still refuses its calls', async () => {
    const reader = makePrincipal({ subject: 'r', scopes: ['files:read'] });
    for (const listOutOfScope of [false, true]) {
      const server = make({ listOutOfScope });
      server.tool({
        name: 'read',
        inputSchema: { type: 'object' },
        scopes: ['files:read'],
        handler: () => 'r',
      });
      server.tool({
        name: 'write',
        inputSchema: { type: 'object' },
        scopes: ['files:write'],
        handler: () => 'w',
      });
      const client = new InProcessClient(server, reader);
      await client.initialize();
      const listed = ((await client.request('tools/list')).result!.tools as { name: string }[]).map(
        (tool) => tool.name,
      );
      assert.deepEqual(listed, listOutOfScope ? ['read', 'write'] : ['read']);
      const refused = await client.callTool('write', {});
      assert.equal(refused.error?.code, -32012);
      assert.equal((await client.callTool('read', {})).result?.content?.[0]?.text, 'r');
      await server.close();
    }
  });
});
