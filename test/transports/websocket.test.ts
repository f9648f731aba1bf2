/**
 * The WebSocket transport with a raw `ws` peer: a closed socket stops its blocking call (the pool
 * thread is freed long before the handler would have finished), dead peers are dropped by the
 * heartbeat, non-local origins are refused at the upgrade, and malformed frames get JSON-RPC errors.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { WebSocket } from 'ws';
import { addDemoTools } from '../../examples/demo-tools.js';
import { McpServer } from '../../lib/index.js';
import { openSocket as open } from '../support/websocket-upgrade.js';

function nextMessage(socket: WebSocket, match: (message: Record<string, unknown>) => boolean = () => true) {
  return new Promise<Record<string, unknown>>((resolve) => {
    const onMessage = (data: Buffer) => {
      const message = JSON.parse(data.toString());
      if (!match(message)) return;
      socket.off('message', onMessage);
      resolve(message);
    };
    socket.on('message', onMessage);
  });
}

async function initialize(socket: WebSocket): Promise<void> {
  const reply = nextMessage(socket, (message) => message.id === 0);
  socket.send(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'ws', version: '1' } },
    }),
  );
  await reply;
  socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
}

describe('WebSocket on the HTTP port', () => {
  it('serves upgrades and Streamable HTTP from one port when both are given the same one', async () => {
    const server = new McpServer({ name: 'one-port', version: '1.0.0' });
    const port = 20_000 + Math.floor(Math.random() * 40_000);
    await server.listen({ http: { port }, ws: { port }, handleSignals: false });
    assert.equal(server.addresses.ws?.port, port);
    const socket = await open(`ws://127.0.0.1:${port}`);
    await initialize(socket);
    socket.close();
    const http = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'h', version: '1' } },
      }),
    });
    assert.equal(http.status, 200);
    await server.close();
  });
});

describe('WebSocket backpressure', () => {
  it('stops reading from a peer that does not read its answers, and catches up once it does', async () => {
    let calls = 0;
    const server = new McpServer({ name: 'ws-pressure', version: '1.0.0' }).tool({
      name: 'big',
      description: 'Returns 256 KiB of text',
      inputSchema: { type: 'object', properties: {} },
      handler: () => {
        calls++;
        return 'x'.repeat(256 * 1024);
      },
    });
    await server.listen({ ws: { port: 0, maxBufferedBytes: 256 * 1024 }, handleSignals: false });
    const socket = await open(`ws://127.0.0.1:${server.addresses.ws!.port}`);
    let answers = 0;
    socket.on('message', () => answers++);
    const raw = (socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    raw.pause();
    const total = 80; // 20 MiB of answers: far more than the kernel buffers of a loopback socket hold
    // Requests already read in one chunk all run; pausing can only hold back the ones still unread,
    // so they are sent a few at a time, as a real client would.
    for (let id = 1; id <= total; id++) {
      socket.send(
        JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'big', arguments: {} } }),
      );
      if (id % 4 === 0) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.ok(calls < total, `the server kept reading: ${calls} of ${total} calls ran`);
    raw.resume();
    const deadline = Date.now() + 10_000;
    while (answers < total && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(answers, total);
    assert.equal(calls, total);
    socket.close();
    await server.close();
  });
});

describe('the WebSocket transport', () => {
  let server: McpServer;
  let url: string;
  before(async () => {
    server = addDemoTools(
      new McpServer({ name: 'ws-test', version: '1.0.0', pool: { maxThreads: 1, graceMs: 100 } }),
    );
    await server.listen({ ws: { port: 0, heartbeatMs: 150, maxPayload: 64 * 1024 }, handleSignals: false });
    url = `ws://127.0.0.1:${server.addresses.ws!.port}`;
  });
  after(() => server.close());

  it('stops a running blocking call when its socket closes', async () => {
    const socket = await open(url);
    await initialize(socket);
    socket.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'spin', arguments: { ms: 1_900 } },
      }),
    );
    const busyBy = Date.now() + 1_000;
    while (server.stats.freeThreads > 0 && Date.now() < busyBy) await new Promise((r) => setTimeout(r, 10));
    assert.equal(server.stats.freeThreads, 0, 'spin is running on the only thread');
    const closedAt = Date.now();
    socket.close();
    while (server.stats.freeThreads === 0 && Date.now() - closedAt < 5_000)
      await new Promise((r) => setTimeout(r, 10));
    const freedAfter = Date.now() - closedAt;
    // The handler would hold the thread ~1.8 s more; stopping it takes the 100 ms grace plus thread exit.
    assert.ok(freedAfter < 1_200, `thread freed ${freedAfter} ms after the close`);
    assert.equal(server.stats.inFlight, 0);
  });

  it('drops a peer that stops answering pings', async () => {
    const socket = await open(url, { autoPong: false });
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    const started = Date.now();
    await closed;
    assert.ok(Date.now() - started < 2_000, 'dropped within a few heartbeats');
  });

  it('refuses an upgrade from a non-local Origin with 403', async () => {
    await assert.rejects(open(url, { headers: { origin: 'http://evil.example.com' } }), /403/);
  });

  it('answers a frame that is not JSON with a parse error, and a binary frame with an invalid request', async () => {
    const socket = await open(url);
    const parseError = nextMessage(socket);
    socket.send('{"jsonrpc":');
    assert.equal(((await parseError).error as { code: number }).code, -32700);
    const invalid = nextMessage(socket);
    socket.send(Buffer.from('{}'), { binary: true });
    assert.equal(((await invalid).error as { code: number }).code, -32600);
    socket.close();
  });

  it('closes the socket with 1009 when a frame exceeds maxPayload', async () => {
    const socket = await open(url);
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    socket.send(
      JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping', params: { pad: 'x'.repeat(100_000) } }),
    );
    assert.equal(await closed, 1009);
  });
});
