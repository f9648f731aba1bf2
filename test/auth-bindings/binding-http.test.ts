/**
 * Two principals against each other over Streamable HTTP, both eras, with the official clients
 * (SDK 1.x for the legacy era, SDK v2 pinned to 2026-07-28) where a client can say it, and a bare
 * peer where the test must send what no well-behaved client would (another caller's session id,
 * task id or requestState):
 * - a legacy session answers another principal 404, byte for byte as an unknown session;
 * - a task is unknown to another principal (get, update, cancel: the unknown-task error), in
 *   both eras, and keeps running for its owner;
 * - a requestState brought by another principal is refused (-32602, requestState "mismatch")
 *   and the handler does not run;
 * - a listen stream hears only its principal's tasks, and is granted only the URIs its scopes read;
 * - scopes: 403 + `insufficient_scope` challenge before anything runs, lists filtered per caller,
 *   and the step-up (same subject, a token with the scope) works on the same legacy session.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpServer } from '../../lib/index.js';
import { type ModernExchange, modernRequest } from '../support/modern-request.js';
import {
  envelope,
  ModernHttpPeer,
  sseMessages,
  standardHeaders,
  type Wire,
} from '../transports/modern-http-peer.js';
import { bindingServer } from './binding-server.js';
import { answeredRuns } from './binding-tools.js';
import { bearer, tokenAuth } from './token-principals.js';

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: {} };
const PIN = { mode: { pin: '2026-07-28' } } as const;
const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

let server: McpServer;
let url: string;
let peer: ModernHttpPeer;

before(async () => {
  server = bindingServer();
  await server.listen({ http: { port: 0, auth: tokenAuth() }, handleSignals: false });
  url = `http://127.0.0.1:${server.addresses.http!.port}/mcp`;
  peer = new ModernHttpPeer(url);
});
after(() => server.close());

/** One modern request as `token`; the JSON-RPC reply (from JSON or the SSE stream) and the HTTP reply. */
async function modern(
  token: string,
  method: string,
  params: Record<string, unknown>,
  capabilities: object = TASKS,
): Promise<ModernExchange> {
  return modernRequest(peer, method, params, { capabilities, headers: bearer(token) });
}

/** A bare legacy POST as `token` (with a session id after initialize). */
async function legacy(
  token: string,
  message: Record<string, unknown>,
  sessionId?: string,
): Promise<{ status: number; headers: Headers; raw: string; body: Wire }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...bearer(token),
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  });
  const raw = await response.text();
  const body = response.headers.get('content-type')?.startsWith('application/json')
    ? raw === ''
      ? undefined
      : JSON.parse(raw)
    : sseMessages(raw).find((entry: Wire) => 'id' in entry);
  return { status: response.status, headers: response.headers, raw, body };
}

async function legacySession(token: string): Promise<string> {
  const init = await legacy(token, {
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  assert.equal(init.status, 200, init.raw);
  const id = init.headers.get('mcp-session-id');
  assert.ok(id);
  await legacy(token, { method: 'notifications/initialized' }, id);
  return id;
}

async function legacyClient(token: string): Promise<Client> {
  const client = new Client({ name: 'binding-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: bearer(token) } }),
  );
  return client;
}

async function modernClient(token: string): Promise<ModernClient> {
  const client = new ModernClient({ name: 'binding-test', version: '1.0.0' }, { versionNegotiation: PIN });
  await client.connect(new ModernTransport(new URL(url), { requestInit: { headers: bearer(token) } }));
  return client;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('legacy sessions belong to their principal', () => {
  it("answers another principal's use of a session id 404, exactly as an unknown id", async () => {
    const alice = await legacySession('alice-token');
    const ping = { id: 2, method: 'ping', params: {} };
    assert.equal((await legacy('alice-token', ping, alice)).status, 200);
    const stolen = await legacy('bob-token', ping, alice);
    const unknown = await legacy('bob-token', ping, randomUUID());
    assert.equal(stolen.status, 404);
    assert.equal(stolen.raw, unknown.raw, 'the same answer as for an id that never existed');
    // GET and DELETE too; and the session is still Alice's afterwards.
    const get = await fetch(url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': alice, ...bearer('bob-token') },
    });
    assert.equal(get.status, 404);
    const del = await fetch(url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': alice, ...bearer('bob-token') },
    });
    assert.equal(del.status, 404);
    assert.equal((await legacy('alice-token', ping, alice)).status, 200);
  });

  it('lets the same subject step up on its session: 403 naming the scope, then a token with it works', async () => {
    const session = await legacySession('alice-readonly');
    const call = { id: 3, method: 'tools/call', params: { name: 'write_note', arguments: { text: 'hi' } } };
    const refused = await legacy('alice-readonly', call, session);
    assert.equal(refused.status, 403);
    const challenge = refused.headers.get('www-authenticate') ?? '';
    assert.match(challenge, /^Bearer error="insufficient_scope"/);
    assert.match(challenge, /scope="notes:write"/);
    assert.equal(refused.body.error.code, -32012);
    const stepped = await legacy('alice-token', { ...call, id: 4 }, session);
    assert.equal(stepped.status, 200, stepped.raw);
    assert.equal(text(stepped.body.result), 'wrote hi');
  });

  it('shows each caller of the 1.x client only the tools, prompts and resources its scopes reach', async () => {
    const readonly = await legacyClient('alice-readonly');
    const full = await legacyClient('alice-token');
    try {
      const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);
      assert.ok(!(await names(readonly)).includes('write_note'));
      assert.ok((await names(readonly)).includes('read_note'));
      assert.ok((await names(full)).includes('write_note'));
      for (const client of [readonly, full]) {
        assert.ok(!(await names(client)).includes('admin_only'), 'no token has admin');
        const prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
        assert.deepEqual(prompts, ['whoami_prompt']);
        const resources = (await client.listResources()).resources.map((resource) => resource.uri);
        assert.deepEqual(resources, ['notes://whoami']);
      }
      const templates = async (client: Client) =>
        (await client.listResourceTemplates()).resourceTemplates.map((entry) => entry.uriTemplate);
      assert.deepEqual(await templates(readonly), []);
      assert.deepEqual(await templates(full), ['notes://by-id/{id}']);
      await assert.rejects(
        readonly.callTool({ name: 'write_note', arguments: {} }),
        /403|insufficient|scope/i,
      );
      assert.equal(text(await full.callTool({ name: 'write_note', arguments: { text: 'x' } })), 'wrote x');
      await assert.rejects(full.readResource({ uri: 'notes://admin' }), /403|scope/i);
      await assert.rejects(full.getPrompt({ name: 'admin_prompt' }), /403|scope/i);
    } finally {
      await readonly.close();
      await full.close();
    }
  });

  it("keeps a legacy task another principal's session cannot see", async () => {
    const alice = await legacySession('alice-token');
    const bob = await legacySession('bob-token');
    const created = await legacy(
      'alice-token',
      { id: 5, method: 'tools/call', params: { name: 'long_task', arguments: {}, task: {} } },
      alice,
    );
    const { taskId } = created.body.result.task;
    const unknownId = randomUUID();
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/result']) {
      const theirs = await legacy('bob-token', { id: 6, method, params: { taskId } }, bob);
      const none = await legacy('bob-token', { id: 7, method, params: { taskId: unknownId } }, bob);
      assert.equal(theirs.body.error.code, -32602, method);
      assert.equal(theirs.body.error.message, none.body.error.message.replace(unknownId, taskId), method);
    }
    const mine = await legacy('alice-token', { id: 8, method: 'tasks/get', params: { taskId } }, alice);
    assert.equal(mine.body.result.status, 'working');
    await legacy('alice-token', { id: 9, method: 'tasks/cancel', params: { taskId } }, alice);
  });
});

describe('2026-07-28 requests carry their own principal', () => {
  it('makes a task unknown to another principal (get, update, cancel) and leaves it running for its owner', async () => {
    const created = await modern('alice-token', 'tools/call', { name: 'long_task', arguments: {} });
    assert.equal(created.body.result.resultType, 'task', JSON.stringify(created.body));
    const { taskId } = created.body.result;
    const unknownId = randomUUID();
    const attempts: [string, Record<string, unknown>][] = [
      ['tasks/get', {}],
      ['tasks/update', { inputResponses: {} }],
      ['tasks/cancel', {}],
    ];
    for (const [method, extra] of attempts) {
      const theirs = await modern('bob-token', method, { taskId, ...extra });
      const none = await modern('bob-token', method, { taskId: unknownId, ...extra });
      assert.equal(theirs.status, none.status, method);
      assert.equal(theirs.body.error?.code, -32602, `${method}: ${JSON.stringify(theirs.body)}`);
      assert.equal(theirs.body.error.message, none.body.error.message.replace(unknownId, taskId), method);
    }
    const mine = await modern('alice-token', 'tasks/get', { taskId });
    assert.equal(mine.body.result.status, 'working', 'bob could not cancel it');
    assert.equal(
      (await modern('alice-token', 'tasks/cancel', { taskId })).body.result.resultType,
      'complete',
    );
    assert.equal((await modern('alice-token', 'tasks/get', { taskId })).body.result.status, 'cancelled');
  });

  it("refuses another principal's requestState (-32602, mismatch) without running the handler", async () => {
    const elicit = { elicitation: {} };
    const round = await modern('alice-token', 'tools/call', { name: 'ask_twice', arguments: {} }, elicit);
    assert.equal(round.body.result.resultType, 'input_required');
    const retry = {
      name: 'ask_twice',
      arguments: {},
      inputResponses: { word: { action: 'accept', content: { word: 'loom' } } },
      requestState: round.body.result.requestState,
    };
    const before = answeredRuns.count;
    const stolen = await modern('bob-token', 'tools/call', retry, elicit);
    assert.equal(stolen.body.error?.code, -32602, JSON.stringify(stolen.body));
    assert.equal(stolen.body.error.data.requestState, 'mismatch');
    assert.doesNotMatch(stolen.body.error.message, /alice/);
    assert.equal(answeredRuns.count, before, 'the handler never ran for bob');
    const own = await modern('alice-token', 'tools/call', retry, elicit);
    assert.equal(text(own.body.result), 'you said loom');
    assert.equal(answeredRuns.count, before + 1);
  });

  it("streams a task's changes to its principal's listen stream only, and grants only readable URIs", async () => {
    const created = await modern('alice-token', 'tools/call', { name: 'long_task', arguments: {} });
    const { taskId } = created.body.result;
    const listen = async (token: string) => {
      const controller = new AbortController();
      const params = {
        notifications: { taskIds: [taskId], resourceSubscriptions: ['notes://whoami', 'notes://admin'] },
        _meta: envelope({ 'io.modelcontextprotocol/clientCapabilities': TASKS }),
      };
      const response = await fetch(url, {
        method: 'POST',
        signal: controller.signal,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...standardHeaders('subscriptions/listen'),
          ...bearer(token),
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: `listen-${token}`,
          method: 'subscriptions/listen',
          params,
        }),
      });
      const reader = response.body!.getReader();
      let raw = '';
      const pump = (async () => {
        try {
          for (;;) {
            const { value, done } = await reader.read();
            if (done) return;
            raw += new TextDecoder().decode(value);
          }
        } catch {}
      })();
      const stop = () => {
        controller.abort();
        return pump;
      };
      return { messages: () => sseMessages(raw), stop };
    };
    const aliceStream = await listen('alice-token');
    const bobStream = await listen('bob-token');
    const acked = (stream: typeof aliceStream) =>
      until(
        async () =>
          stream.messages().find((message) => message.method === 'notifications/subscriptions/acknowledged'),
        Boolean,
      );
    const aliceAck: Wire = await acked(aliceStream);
    await acked(bobStream);
    assert.deepEqual(aliceAck.params.notifications.resourceSubscriptions, ['notes://whoami']);
    await modern('alice-token', 'tasks/cancel', { taskId });
    await until(
      async () => aliceStream.messages().filter((message) => message.method === 'notifications/tasks'),
      (notes) => notes.some((note) => note.params.status === 'cancelled'),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(
      bobStream.messages().filter((message) => message.method === 'notifications/tasks'),
      [],
      "bob's stream hears nothing of alice's task",
    );
    await aliceStream.stop();
    await bobStream.stop();
  });

  it('answers 403 with the challenge before a call lacking a scope runs, and filters lists for the v2 client', async () => {
    const refused = await modern('alice-readonly', 'tools/call', { name: 'write_note', arguments: {} });
    assert.equal(refused.status, 403);
    assert.match(
      refused.headers.get('www-authenticate') ?? '',
      /error="insufficient_scope", scope="notes:write"/,
    );
    const readonly = await modernClient('alice-readonly');
    const full = await modernClient('alice-token');
    try {
      const names = async (client: ModernClient) => (await client.listTools()).tools.map((tool) => tool.name);
      assert.ok(!(await names(readonly)).includes('write_note'));
      assert.ok((await names(full)).includes('write_note'));
      await assert.rejects(readonly.callTool({ name: 'write_note', arguments: {} }), /403|scope/i);
      assert.equal(text(await full.callTool({ name: 'write_note', arguments: { text: 'v2' } })), 'wrote v2');
    } finally {
      await readonly.close();
      await full.close();
    }
  });
});
