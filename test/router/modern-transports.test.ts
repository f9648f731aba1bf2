/**
 * Both eras on one stdio stream and one WebSocket, with raw JSON-RPC: a legacy session and modern
 * requests interleaved, each answered in its own era's shape; a listen stream's notifications
 * beside the legacy session's broadcast; a cancel ending a modern blocking call's thread; and a
 * listen stream answered complete when stdin ends. No server-to-client request is ever sent for a
 * modern request.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import type { McpServer } from '../../lib/index.js';
import { type Message, RawStdioClient } from '../faults/raw-stdio-client.js';
import { buildModernServer, envelope } from './modern-fixtures.js';

const SUBSCRIPTION = 'io.modelcontextprotocol/subscriptionId';
const SCRIPT = fileURLToPath(new URL('./modern-fixtures.js', import.meta.url));

const params = (extra: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => ({
  ...extra,
  _meta: envelope(meta),
});
const subscriptionOf = (message: Message) =>
  (message.params as { _meta?: Record<string, unknown> } | undefined)?._meta?.[SUBSCRIPTION];

describe('stdio: one stream, both eras', () => {
  let client: RawStdioClient;
  before(() => {
    client = new RawStdioClient(SCRIPT);
  });
  after(() => client.kill());

  it('answers a legacy session and modern requests interleaved, each in its own shape', async () => {
    const discover = await client.request('server/discover', params());
    assert.equal((discover.result as { resultType?: string }).resultType, 'complete');
    const init = await client.initialize();
    assert.equal((init.result as { protocolVersion: string }).protocolVersion, '2025-06-18');
    const [legacyList, modernList, legacyCall, modernCall, ping, modernPing] = await Promise.all([
      client.request('tools/list'),
      client.request('tools/list', params()),
      client.call('echo', { text: 'legacy' }),
      client.request('tools/call', params({ name: 'echo', arguments: { text: 'modern' } })),
      client.request('ping'),
      client.request('ping', params()),
    ]);
    const legacyResult = legacyList.result as Record<string, unknown>;
    const modernResult = modernList.result as Record<string, unknown>;
    assert.equal(legacyResult.resultType, undefined);
    assert.equal(modernResult.resultType, 'complete');
    assert.equal(modernResult.cacheScope, 'private');
    assert.deepEqual(modernResult.tools, legacyResult.tools);
    assert.deepEqual(legacyCall.result, { content: [{ type: 'text', text: 'legacy' }] });
    assert.deepEqual((modernCall.result as { content: unknown }).content, [{ type: 'text', text: 'modern' }]);
    assert.equal((modernCall.result as { resultType: string }).resultType, 'complete');
    assert.deepEqual(ping.result, {});
    assert.equal((modernPing.error as { code: number }).code, -32601);
    assert.deepEqual(client.garbage, []);
  });

  it("keeps a result's own _meta beside serverInfo, and leaves the legacy answer without either", async () => {
    const modernAnswer = await client.request('tools/call', params({ name: 'with_meta', arguments: {} }));
    assert.deepEqual((modernAnswer.result as { _meta: unknown })._meta, {
      'com.example/trace': 'abc',
      'io.modelcontextprotocol/serverInfo': { name: 'weft-modern', version: '1.2.3' },
    });
    const legacyAnswer = await client.call('with_meta', {});
    assert.deepEqual(legacyAnswer.result, {
      content: [{ type: 'text', text: 'meta' }],
      _meta: { 'com.example/trace': 'abc' },
    });
  });

  it('carries a listen stream beside the legacy broadcast, then ends it on notifications/cancelled', async () => {
    const listenId = 'stdio-listen';
    client.send({
      jsonrpc: '2.0',
      id: listenId,
      method: 'subscriptions/listen',
      params: params({ notifications: { toolsListChanged: true } }),
    });
    const ack = await client.waitFor(
      (message) => message.method === 'notifications/subscriptions/acknowledged',
    );
    assert.equal(subscriptionOf(ack), listenId);
    await client.request('tools/call', params({ name: 'touch_tools', arguments: {} }));
    const tagged = await client.waitFor(
      (message) =>
        message.method === 'notifications/tools/list_changed' && subscriptionOf(message) === listenId,
    );
    assert.ok(tagged);
    // The legacy session on the same stream initialized, so it hears the change in its own shape.
    await client.waitFor(
      (message) =>
        message.method === 'notifications/tools/list_changed' && subscriptionOf(message) === undefined,
    );
    client.notify('notifications/cancelled', { requestId: listenId });
    const before = client.messages.length;
    await client.request('tools/call', params({ name: 'touch_tools', arguments: {} }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const later = client.messages.slice(before);
    assert.equal(
      later.some((message) => subscriptionOf(message) === listenId),
      false,
    );
    assert.equal(client.answers.has(listenId), false, 'a cancelled listen is not answered');
  });

  it('stops modern blocking calls on notifications/cancelled and sends nothing for them', async () => {
    // Both pool threads spin; unless the cancels really stop them, nothing else can run.
    const ids = ['modern-spin-1', 'modern-spin-2'];
    for (const id of ids) {
      client.send({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: params({ name: 'spin', arguments: { ms: 600_000 } }),
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const id of ids) client.notify('notifications/cancelled', { requestId: id });
    const answers = await Promise.all([
      client.request('tools/call', params({ name: 'fib', arguments: { n: 25 } })),
      client.request('tools/call', params({ name: 'fib', arguments: { n: 24 } })),
    ]);
    assert.match(JSON.stringify(answers[0]!.result), /75025/);
    assert.match(JSON.stringify(answers[1]!.result), /46368/);
    for (const id of ids) assert.equal(client.answers.has(id), false);
  });

  it('never sends a request to the client for a modern request', async () => {
    const answer = await client.request(
      'tools/call',
      params(
        { name: 'ask', arguments: {} },
        { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } },
      ),
    );
    // The question travels inside the answer (input_required), never as a request of its own.
    const result = answer.result as {
      resultType?: string;
      inputRequests?: Record<string, { method: string }>;
    };
    assert.equal(result.resultType, 'input_required');
    assert.deepEqual(
      Object.values(result.inputRequests ?? {}).map(({ method }) => method),
      ['elicitation/create'],
    );
    const serverRequests = client.messages.filter((message) => 'method' in message && 'id' in message);
    assert.deepEqual(serverRequests, []);
  });

  it('answers an open listen stream complete when stdin ends, then exits 0', async () => {
    client.send({
      jsonrpc: '2.0',
      id: 99,
      method: 'subscriptions/listen',
      params: params({ notifications: { promptsListChanged: true } }),
    });
    await client.waitFor((message) => subscriptionOf(message) === 99);
    const exit = await client.close();
    assert.equal(exit.code, 0);
    const [end] = client.answers.get(99) ?? [];
    assert.ok(end, 'the listen request was answered before the server exited');
    const result = end.result as { resultType: string; _meta: Record<string, unknown> };
    assert.equal(result._meta[SUBSCRIPTION], 99);
    assert.equal(result.resultType, 'complete');
  });
});

describe('WebSocket: the same modern messages, one per frame', () => {
  let server: McpServer;
  let url: string;
  before(async () => {
    server = buildModernServer();
    await server.listen({ ws: { port: 0 }, handleSignals: false });
    url = `ws://127.0.0.1:${server.addresses.ws!.port}`;
  });
  after(() => server.close());

  function open(): Promise<{
    socket: WebSocket;
    messages: Message[];
    next: (test: (m: Message) => boolean) => Promise<Message>;
  }> {
    const socket = new WebSocket(url, 'mcp');
    const messages: Message[] = [];
    const waiters: Array<[(m: Message) => boolean, (m: Message) => void]> = [];
    socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString()) as Message;
      messages.push(message);
      for (const waiter of [...waiters]) {
        if (waiter[0](message)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter[1](message);
        }
      }
    });
    const next = (test: (m: Message) => boolean) =>
      new Promise<Message>((resolve) => {
        const seen = messages.find(test);
        if (seen) resolve(seen);
        else waiters.push([test, resolve]);
      });
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve({ socket, messages, next }));
      socket.once('error', reject);
    });
  }

  it('serves discover, a call and a listen stream, and a closed socket ends the stream', async () => {
    const { socket, next } = await open();
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: params() }));
    const discover = await next((message) => message.id === 1);
    assert.deepEqual((discover.result as { supportedVersions: string[] }).supportedVersions, ['2026-07-28']);
    socket.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: params({ name: 'fib', arguments: { n: 10 } }),
      }),
    );
    const call = await next((message) => message.id === 2);
    assert.equal((call.result as { resultType: string }).resultType, 'complete');
    socket.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'ws-listen',
        method: 'subscriptions/listen',
        params: params({ notifications: { toolsListChanged: true } }),
      }),
    );
    await next((message) => message.method === 'notifications/subscriptions/acknowledged');
    server.tool({ name: 'ws_added', inputSchema: { type: 'object' }, handler: () => 'x' });
    const changed = await next((message) => message.method === 'notifications/tools/list_changed');
    assert.equal(subscriptionOf(changed), 'ws-listen');
    const inFlight = server.stats.inFlight;
    socket.close();
    await new Promise((resolve) => socket.once('close', resolve));
    for (let i = 0; i < 50 && server.stats.inFlight >= inFlight; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(server.stats.inFlight, inFlight - 1, 'the listen stream ended with its socket');
    server.removeTool('ws_added');
  });
});
