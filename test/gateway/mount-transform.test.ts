/**
 * `server.mount(upstream, { transform })`: a mounted tool published under a derived face. Renamed
 * arguments reach the upstream under their upstream names, a hidden one always with its default,
 * a defaulted one filled in; a withdrawn name is refused at the gateway; the upstream still
 * validates what it gets. A custom handler's forward reaches the upstream tool. Mistakes in the
 * transformation fail the mount itself, with a message. Through weft/client (2026-07-28) and the
 * official SDK 1.x client (2025-11-25), over a weft upstream spoken to in both eras.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as Sdk1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Sdk1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connect, type McpClient } from '../../lib/client/index.js';
import { McpServer } from '../../lib/index.js';

const text = (result: Record<string, unknown>) =>
  (result.content as { text?: string }[]).map((block) => block.text).join('|');

/** What the upstream's tools were called with, in order. */
const received: Record<string, unknown>[] = [];

const recordSchema = {
  type: 'object',
  properties: {
    text: { type: 'string', description: 'upstream text' },
    mode: { type: 'string', enum: ['loud', 'quiet'] },
    count: { type: 'integer', minimum: 1 },
  },
  required: ['text', 'mode'],
  additionalProperties: false,
} as const;

let upstream: McpServer;
let gateway: McpServer;
let client: McpClient;
let url: string;

before(async () => {
  upstream = new McpServer({ name: 'upstream', version: '0.0.0' });
  for (const name of ['record', 'record_again', 'record_legacy']) {
    upstream.tool({
      name,
      description: `Records its arguments (${name})`,
      inputSchema: recordSchema,
      handler: (args) => {
        received.push({ tool: name, ...args });
        return JSON.stringify(args);
      },
    });
  }
  gateway = new McpServer({ name: 'gateway', version: '0.0.0', timeoutMs: 20_000 });
  const transform = {
    record: {
      name: 'shout',
      description: 'Shouts a message',
      args: {
        text: { rename: 'message', description: 'What to shout' },
        mode: { hide: true, default: 'loud' },
        count: { default: 2 },
      },
    },
    record_again: {
      name: 'shout_twice',
      args: { mode: { hide: true, default: 'quiet' } },
      handler: async (
        args: Record<string, unknown>,
        _ctx: unknown,
        forward: (args: Record<string, unknown>) => Promise<unknown>,
      ) => {
        const first = (await forward(args)) as Record<string, unknown>;
        const second = (await forward({ ...args, count: 9 })) as Record<string, unknown>;
        return `${text(first)} then ${text(second)}`;
      },
    },
  };
  await gateway.mount(upstream, { namespace: 'up', transform });
  await gateway.mount(upstream, {
    namespace: 'old',
    protocol: 'legacy',
    transform: {
      record_legacy: { args: { text: { rename: 'words' }, mode: { hide: true, default: 'quiet' } } },
    },
  });
  await gateway.listen({ http: { port: 0, host: '127.0.0.1' } });
  url = `http://127.0.0.1:${gateway.addresses.http?.port}/mcp`;
  client = await connect(url, { protocol: 'modern' });
});
after(async () => {
  await client.close();
  await gateway.close();
  await upstream.close();
});

describe('a transformed mounted tool', () => {
  test('is published under its derived face, the original name gone', async () => {
    const tools = await client.listTools();
    const names = tools.map((tool) => tool.name);
    assert.ok(names.includes('up_shout') && names.includes('up_shout_twice'), names.join());
    assert.ok(!names.includes('up_record') && !names.includes('up_record_again'), names.join());
    const shout = tools.find((tool) => tool.name === 'up_shout');
    assert.equal(shout?.description, 'Shouts a message');
    assert.deepEqual(shout?.inputSchema, {
      type: 'object',
      properties: {
        message: { type: 'string', description: 'What to shout' },
        count: { type: 'integer', minimum: 1, default: 2 },
      },
      required: ['message'],
      additionalProperties: false,
    });
  });

  test('renamed, hidden and defaulted arguments reach the upstream under its own names', async () => {
    received.length = 0;
    const result = await client.callTool('up_shout', { message: 'hi' });
    assert.equal(result.isError, undefined);
    assert.deepEqual(JSON.parse(text(result)), { text: 'hi', mode: 'loud', count: 2 });
    await client.callTool('up_shout', { message: 'again', count: 5 });
    assert.deepEqual(received, [
      { tool: 'record', text: 'hi', mode: 'loud', count: 2 },
      { tool: 'record', text: 'again', mode: 'loud', count: 5 },
    ]);
  });

  test('a withdrawn name is refused at the gateway, and the upstream still validates', async () => {
    received.length = 0;
    const old = await client.callTool('up_shout', { text: 'hi' });
    assert.equal(old.isError, true);
    assert.match(
      text(old),
      /Invalid arguments for tool "up_shout": unknown argument "text" \(it is called "message" now\)/,
    );
    const hidden = await client.callTool('up_shout', { message: 'hi', mode: 'quiet' });
    assert.equal(hidden.isError, true);
    assert.match(text(hidden), /unknown argument "mode" \(it cannot be set\)/);
    const invalid = await client.callTool('up_shout', { message: 'hi', count: 0 });
    assert.equal(invalid.isError, true, "the upstream's own schema refuses count 0");
    assert.deepEqual(received, [], 'nothing refused reached the upstream handler');
  });

  test("a custom handler's forward reaches the upstream tool", async () => {
    received.length = 0;
    const result = await client.callTool('up_shout_twice', { text: 'x' });
    assert.equal(text(result), '{"text":"x","mode":"quiet"} then {"text":"x","count":9,"mode":"quiet"}');
    assert.deepEqual(received, [
      { tool: 'record_again', text: 'x', mode: 'quiet' },
      { tool: 'record_again', text: 'x', count: 9, mode: 'quiet' },
    ]);
    const refused = await client.callTool('up_shout_twice', { text: 7 });
    assert.equal(refused.isError, true, "a custom handler is weft's own tool: its derived schema is checked");
    assert.match(text(refused), /Invalid arguments for tool "up_shout_twice"/);
  });

  test('works for a 2025-11-25 client, and over a legacy connection to the upstream', async () => {
    received.length = 0;
    const sdk = new Sdk1Client({ name: 'sdk1', version: '0.0.0' });
    await sdk.connect(new Sdk1Http(new URL(url)));
    try {
      const { tools } = await sdk.listTools();
      const legacy = tools.find((tool) => tool.name === 'old_record_legacy');
      assert.deepEqual(Object.keys(legacy?.inputSchema.properties ?? {}), ['words', 'count']);
      assert.deepEqual(legacy?.inputSchema.required, ['words']);
      const result = await sdk.callTool({ name: 'old_record_legacy', arguments: { words: 'w', count: 1 } });
      assert.deepEqual(JSON.parse(text(result)), { text: 'w', count: 1, mode: 'quiet' });
      const shout = await sdk.callTool({ name: 'up_shout', arguments: { message: 'sdk' } });
      assert.deepEqual(JSON.parse(text(shout)), { text: 'sdk', mode: 'loud', count: 2 });
    } finally {
      await sdk.close();
    }
  });
});

describe('a transformation that cannot be derived', () => {
  test('fails the mount when a hidden argument has no default', async () => {
    const other = new McpServer({ name: 'other', version: '0.0.0' });
    await assert.rejects(
      other.mount(upstream, { transform: { record: { args: { mode: { hide: true } } } } }),
      /server\.mount: transform\.record: args\.mode: a hidden argument needs a default/,
    );
    await assert.rejects(
      other.mount(upstream, { transform: { record: { nme: 'x' } as never } }),
      /transform\.record: unknown option "nme"/,
    );
    await other.close();
  });

  test('leaves unpublished, with a logged reason, a tool whose upstream lacks the argument', async () => {
    const logged: string[] = [];
    const other = new McpServer({ name: 'other', version: '0.0.0', logError: (line) => logged.push(line) });
    await other.mount(upstream, { transform: { record: { args: { nope: { rename: 'x' } } } } });
    const names = await listNames(other);
    assert.ok(!names.includes('record') && names.includes('record_again'), names.join());
    assert.ok(
      logged.some((line) =>
        /Mounted tool "record": transform: args\.nope: the tool has no argument "nope"/.test(line),
      ),
      logged.join('\n'),
    );
    await other.close();
  });
});

async function listNames(server: McpServer): Promise<string[]> {
  await server.listen({ http: { port: 0, host: '127.0.0.1' } });
  const probe = await connect(`http://127.0.0.1:${server.addresses.http?.port}/mcp`, { protocol: 'modern' });
  try {
    return (await probe.listTools()).map((tool) => tool.name);
  } finally {
    await probe.close();
  }
}
