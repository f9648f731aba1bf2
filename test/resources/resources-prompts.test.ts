/**
 * Resources, templates, subscriptions, prompts and completion, through the official SDK client over
 * Streamable HTTP: what a real client sees, list_changed on the standalone stream included.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type McpError,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { McpServer } from '../../lib/index.js';

function catalogServer(): McpServer {
  return new McpServer({ name: 'catalog', version: '1.0.0', pageSize: 2 })
    .resource({ uri: 'app://c', name: 'c', mimeType: 'text/plain', read: () => 'third' })
    .resource({ uri: 'app://a', name: 'a', mimeType: 'text/plain', read: () => 'first' })
    .resource({
      uri: 'app://b.bin',
      name: 'b',
      mimeType: 'application/octet-stream',
      read: () => new Uint8Array([0, 1, 2, 255]),
    })
    .resourceTemplate({
      uriTemplate: 'app://users/{id}/profile',
      name: 'profile',
      mimeType: 'application/json',
      read: (_uri, { id }) => JSON.stringify({ id }),
      complete: { id: (value) => ['alice', 'albert', 'bob'].filter((name) => name.startsWith(value)) },
    })
    .prompt({
      name: 'greet',
      description: 'Greets someone',
      arguments: [
        {
          name: 'who',
          required: true,
          complete: (value) => ['world', 'weft'].filter((w) => w.startsWith(value)),
        },
        { name: 'tone' },
      ],
      get: ({ who, tone }) => `Say hello to ${who}${tone ? ` in a ${tone} tone` : ''}`,
    })
    .prompt({ name: 'answer', get: () => [{ role: 'assistant', content: { type: 'text', text: '42' } }] });
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('resources and prompts over Streamable HTTP', () => {
  let server: McpServer;
  let client: Client;
  const updates: string[] = [];
  let listChanges = 0;
  before(async () => {
    server = catalogServer();
    await server.listen({ http: { port: 0 }, handleSignals: false });
    client = new Client({ name: 'weft-test', version: '1.0.0' });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
    });
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      listChanges++;
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.addresses.http!.port}/mcp`)),
    );
  });
  after(async () => {
    await client.close();
    await server.close();
  });

  it('declares the resources, prompts and completions capabilities', () => {
    const capabilities = client.getServerCapabilities()!;
    assert.deepEqual(capabilities.resources, { subscribe: true, listChanged: true });
    assert.deepEqual(capabilities.prompts, { listChanged: true });
    assert.deepEqual(capabilities.completions, {});
  });

  it('lists resources in URI order across pages, and templates apart', async () => {
    const first = await client.listResources();
    assert.deepEqual(
      first.resources.map((r) => r.uri),
      ['app://a', 'app://b.bin'],
    );
    const second = await client.listResources({ cursor: first.nextCursor! });
    assert.deepEqual(
      second.resources.map((r) => r.uri),
      ['app://c'],
    );
    assert.equal(second.nextCursor, undefined);
    const templates = await client.listResourceTemplates();
    assert.deepEqual(templates.resourceTemplates, [
      { uriTemplate: 'app://users/{id}/profile', name: 'profile', mimeType: 'application/json' },
    ]);
  });

  it('reads text, binary (base64 blob) and templated resources; an unknown URI is -32002', async () => {
    assert.deepEqual((await client.readResource({ uri: 'app://a' })).contents, [
      { uri: 'app://a', mimeType: 'text/plain', text: 'first' },
    ]);
    const binary = (await client.readResource({ uri: 'app://b.bin' })).contents[0] as { blob: string };
    assert.deepEqual([...Buffer.from(binary.blob, 'base64')], [0, 1, 2, 255]);
    const profile = (await client.readResource({ uri: 'app://users/al%20ice/profile' })).contents[0] as {
      text: string;
    };
    assert.deepEqual(JSON.parse(profile.text), { id: 'al ice' });
    await assert.rejects(
      client.readResource({ uri: 'app://nothing' }),
      (error: McpError) => error.code === -32002,
    );
  });

  it('sends resources/updated to subscribers only, until they unsubscribe', async () => {
    await client.subscribeResource({ uri: 'app://a' });
    server.resourceUpdated('app://a');
    server.resourceUpdated('app://c');
    await wait(200);
    assert.deepEqual(updates, ['app://a']);
    await client.unsubscribeResource({ uri: 'app://a' });
    server.resourceUpdated('app://a');
    await wait(200);
    assert.deepEqual(updates, ['app://a']);
    await assert.rejects(
      client.subscribeResource({ uri: 'app://none' }),
      (error: McpError) => error.code === -32602,
    );
  });

  it('announces a resource added later with list_changed on the standalone stream', async () => {
    const before = listChanges;
    server.resource({ uri: 'app://d', name: 'd', read: () => 'late' });
    const deadline = Date.now() + 3_000;
    while (listChanges === before && Date.now() < deadline) await wait(20);
    assert.equal(listChanges, before + 1);
    assert.equal(server.removeResource('app://d'), true);
  });

  it('lists prompts and gets them with their arguments; a missing required one is -32602', async () => {
    const { prompts } = await client.listPrompts();
    assert.deepEqual(
      prompts.map((p) => p.name),
      ['answer', 'greet'],
    );
    assert.deepEqual(prompts[1]!.arguments, [{ name: 'who', required: true }, { name: 'tone' }]);
    const greet = await client.getPrompt({ name: 'greet', arguments: { who: 'weft', tone: 'warm' } });
    assert.deepEqual(greet.messages, [
      { role: 'user', content: { type: 'text', text: 'Say hello to weft in a warm tone' } },
    ]);
    await assert.rejects(client.getPrompt({ name: 'greet' }), (error: McpError) => error.code === -32602);
    await assert.rejects(client.getPrompt({ name: 'nope' }), (error: McpError) => error.code === -32602);
  });

  it('completes prompt arguments and template variables; an unknown reference is -32602', async () => {
    const prompt = await client.complete({
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'who', value: 'w' },
    });
    assert.deepEqual(prompt.completion.values, ['world', 'weft']);
    const template = await client.complete({
      ref: { type: 'ref/resource', uri: 'app://users/{id}/profile' },
      argument: { name: 'id', value: 'al' },
    });
    assert.deepEqual(template.completion.values, ['alice', 'albert']);
    const none = await client.complete({
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'tone', value: '' },
    });
    assert.deepEqual(none.completion.values, []);
    await assert.rejects(
      client.complete({ ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'x', value: '' } }),
      (error: McpError) => error.code === -32602,
    );
  });
});

describe('resource and prompt registration checks', () => {
  it('refuses duplicates, unknown options, bad URIs and unsupported templates with a message', () => {
    const server = catalogServer();
    assert.throws(
      () => server.resource({ uri: 'app://a', name: 'again', read: () => '' }),
      /already registered/,
    );
    assert.throws(() => server.resource({ uri: 'not a uri', name: 'x', read: () => '' }), /absolute URI/);
    assert.throws(
      () => server.resource({ uri: 'app://z', name: 'z', read: () => '', mimetype: 'x' } as never),
      /unknown option "mimetype"/,
    );
    assert.throws(
      () => server.resourceTemplate({ uriTemplate: 'app://{+path}', name: 'p', read: () => '' }),
      /not supported/,
    );
    assert.throws(() => server.prompt({ name: 'greet', get: () => '' }), /already registered/);
    assert.throws(() => server.prompt({ name: 'p' } as never), /get must be a function/);
  });
});
