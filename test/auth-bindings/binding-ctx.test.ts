/**
 * `ctx.auth` in every kind of handler, in both eras over HTTP: an inline tool, a pool thread, a
 * pool process, a tool called through ctx.tools().call, a prompt, a resource reader and a template
 * reader, a task's beforeTask and its handler. Each reports the principal it saw and whether it was
 * frozen; each must see the caller's principal, whole. Without an auth hook, ctx.auth is undefined.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpServer } from '../../lib/index.js';
import { modernRequest } from '../support/modern-request.js';
import { ModernHttpPeer } from '../transports/modern-http-peer.js';
import { bindingServer } from './binding-server.js';
import { bearer, PRINCIPALS, tokenAuth } from './token-principals.js';

const ALICE = JSON.parse(JSON.stringify(PRINCIPALS['alice-token']));
const BOB = JSON.parse(JSON.stringify(PRINCIPALS['bob-token']));
const TOOLS = ['whoami_inline', 'whoami_thread', 'whoami_process', 'whoami_inner'];

let server: McpServer;
let url: string;

before(async () => {
  server = bindingServer();
  await server.listen({ http: { port: 0, auth: tokenAuth() }, handleSignals: false });
  url = `http://127.0.0.1:${server.addresses.http!.port}/mcp`;
});
after(() => server.close());

const saw = (value: string) => JSON.parse(value) as { auth: unknown; frozen: boolean | null };

describe('ctx.auth in a legacy session (SDK 1.x client)', () => {
  let client: Client;
  before(async () => {
    client = new Client({ name: 'binding-ctx', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: bearer('alice-token') } }),
    );
  });
  after(() => client.close());

  for (const name of TOOLS) {
    it(`is the caller's frozen principal in ${name}`, async () => {
      const result = (await client.callTool({ name, arguments: {} })) as { content: { text: string }[] };
      assert.deepEqual(saw(result.content[0]!.text), { auth: ALICE, frozen: true });
    });
  }

  it('is the principal in a prompt, a resource reader and a template reader', async () => {
    const prompt = await client.getPrompt({ name: 'whoami_prompt' });
    assert.deepEqual(saw((prompt.messages[0]!.content as { text: string }).text), {
      auth: ALICE,
      frozen: true,
    });
    const resource = await client.readResource({ uri: 'notes://whoami' });
    assert.deepEqual(saw((resource.contents[0] as { text: string }).text), { auth: ALICE, frozen: true });
    const templated = await client.readResource({ uri: 'notes://by-id/7' });
    const [id, rest] = (templated.contents[0] as { text: string }).text.split(': ');
    assert.equal(id, '7');
    assert.deepEqual(saw(rest!), { auth: ALICE, frozen: true });
  });

  it('is the principal in readers reached through ctx.resources() and ctx.prompts(), scopes checked', async () => {
    const result = (await client.callTool({ name: 'whoami_views', arguments: {} })) as {
      content: { text: string }[];
    };
    const seen = JSON.parse(result.content[0]!.text);
    assert.deepEqual(seen.resource, { auth: ALICE, frozen: true });
    assert.deepEqual(seen.prompt, { auth: ALICE, frozen: true });
    assert.equal(seen.admin, -32012, 'a read through a view needs the scopes a client read would');
    // Alice (notes:read, notes:write) sees what her own listings show: nothing needing admin.
    for (const name of ['whoami_views', 'whoami_prompt', 'notes://whoami', 'notes://by-id/{id}'])
      assert.ok(seen.listed.includes(name), `${name} in ${seen.listed}`);
    for (const name of ['admin_only', 'admin_prompt', 'notes://admin'])
      assert.ok(!seen.listed.includes(name), `${name} not in ${seen.listed}`);
  });

  it("is the principal in a task's beforeTask and in its handler", async () => {
    const stream = client.experimental.tasks.callToolStream(
      { name: 'whoami_task', arguments: {} },
      undefined,
      {
        task: {},
      },
    ) as AsyncGenerator<{ type: string; result?: { content: { text: string }[] } }>;
    let last: { type: string; result?: { content: { text: string }[] } } | undefined;
    for await (const message of stream) last = message;
    assert.equal(last?.type, 'result', JSON.stringify(last));
    const both = JSON.parse(last!.result!.content[0]!.text);
    assert.deepEqual(both.beforeTask, { auth: ALICE, frozen: true });
    assert.deepEqual(both.task, { auth: ALICE, frozen: true });
  });
});

describe('ctx.auth in 2026-07-28 requests', () => {
  const peer = () => new ModernHttpPeer(url);
  async function rpc(
    token: string,
    method: string,
    params: Record<string, unknown>,
    capabilities: object = {},
  ) {
    const reply = await modernRequest(peer(), method, params, { capabilities, headers: bearer(token) });
    assert.ok(reply.body?.result, `${method}: HTTP ${reply.status} ${reply.raw}`);
    return reply.body.result;
  }

  for (const name of TOOLS) {
    it(`is each request's own principal in ${name}`, async () => {
      for (const [token, expected] of [
        ['alice-token', ALICE],
        ['bob-token', BOB],
      ] as const) {
        const result = await rpc(token, 'tools/call', { name, arguments: {} });
        assert.deepEqual(saw(result.content[0].text), { auth: expected, frozen: true });
      }
    });
  }

  it('is the principal in a prompt and a resource reader', async () => {
    const prompt = await rpc('bob-token', 'prompts/get', { name: 'whoami_prompt' });
    assert.deepEqual(saw(prompt.messages[0].content.text), { auth: BOB, frozen: true });
    const resource = await rpc('bob-token', 'resources/read', { uri: 'notes://whoami' });
    assert.deepEqual(saw(resource.contents[0].text), { auth: BOB, frozen: true });
  });

  it("is the principal in a task's beforeTask and handler", async () => {
    const tasks = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
    const created = await rpc('bob-token', 'tools/call', { name: 'whoami_task', arguments: {} }, tasks);
    const deadline = Date.now() + 10_000;
    let task = await rpc('bob-token', 'tasks/get', { taskId: created.taskId }, tasks);
    while (task.status !== 'completed' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      task = await rpc('bob-token', 'tasks/get', { taskId: created.taskId }, tasks);
    }
    const both = JSON.parse(task.result.content[0].text);
    assert.deepEqual(both, { beforeTask: { auth: BOB, frozen: true }, task: { auth: BOB, frozen: true } });
  });
});

describe('without an auth hook', () => {
  it('leaves ctx.auth undefined and checks no scopes', async () => {
    const open = bindingServer();
    await open.listen({ http: { port: 0 }, handleSignals: false });
    const client = new Client({ name: 'binding-ctx', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${open.addresses.http!.port}/mcp`)),
    );
    try {
      for (const name of TOOLS) {
        const result = (await client.callTool({ name, arguments: {} })) as { content: { text: string }[] };
        assert.deepEqual(saw(result.content[0]!.text), { auth: null, frozen: null }, name);
      }
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      assert.ok(tools.includes('admin_only'), 'every tool is listed');
      const admin = (await client.callTool({ name: 'admin_only', arguments: {} })) as {
        content: { text: string }[];
      };
      assert.equal(admin.content[0]!.text, 'admin');
    } finally {
      await client.close();
      await open.close();
    }
  });
});
