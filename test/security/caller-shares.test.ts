/**
 * A fair share of every shared capacity, counted by the caller identity of the door (principal,
 * else client address). Before: each 2026-07-28 request was a caller of its own, so one anonymous
 * client's 8 queued calls all went before another host's one; 10 callers' sessions filled
 * `maxSessions` and an 11th got 503; one principal holding every listen stream or socket made
 * another's get -32013 `maxListens` or 503; every anonymous modern client shared one task bucket, so
 * one's flood evicted another's finished results.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WebSocket } from 'ws';
import { McpServer, makePrincipal } from '../../lib/index.js';
import { MemoryTaskStore } from '../../lib/tasks/memory-task-store.js';
import { MADE_ROOM_CLOSE } from '../../lib/transports/websocket.js';
import { fetchFrom } from '../support/fetch-from.js';
import { busy } from '../support/fixture-tools.js';
import { initializeSession, pingSession } from '../support/legacy-session.js';
import { acknowledgements, keepingPeer, listenRequest } from '../support/listen-peer.js';
import { modernAnswer } from '../support/modern-request.js';
import { finishingOrder, modernClientFrom } from '../support/pool-sharing.js';
import { openSocket, upgradeStatus } from '../support/websocket-upgrade.js';
import { ModernHttpPeer } from '../transports/modern-http-peer.js';

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

/** Whoever sends `x-user` is that principal (a stand-in for a bearer token's subject). */
const userHook = (request: { headers: Record<string, string | string[] | undefined> }) => ({
  principal: makePrincipal({ subject: String(request.headers['x-user']), issuer: 'https://issuer.test' }),
});

const wsPeer = (url: string, user: string) => keepingPeer(url, { headers: { 'x-user': user } });
const listen = listenRequest;
const acks = acknowledgements;

async function until(done: () => boolean, what: string, withinMs = 10_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Opens `user`'s socket and one listen stream on it; asserts the listen was acknowledged. */
async function listenAcknowledged(url: string, user: string): Promise<WebSocket> {
  const peer = await wsPeer(url, user);
  peer.socket.send(listen(1));
  await until(() => peer.received.length >= 1, `${user}'s listen answered`);
  assert.equal(
    peer.received[0].method,
    'notifications/subscriptions/acknowledged',
    JSON.stringify(peer.received[0]),
  );
  return peer.socket;
}

describe('security: every shared capacity is shared fairly by caller', () => {
  it('two anonymous modern clients on two addresses share the pool: the one-at-a-time caller is not queued behind 8 calls of the other', async () => {
    const server = new McpServer({ name: 'pool-share', version: '1', pool: { maxThreads: 1 } }).tool(busy);
    await server.listen({ http: { port: 0 }, handleSignals: false });
    const url = `http://127.0.0.1:${server.addresses.http!.port}/mcp`;
    const heavy = await modernClientFrom(url, '127.0.0.1');
    const light = await modernClientFrom(url, '127.0.0.2');
    try {
      const finished = await finishingOrder(server, heavy, light);
      const rank = finished.indexOf('light');
      assert.ok(rank <= 2, `the light caller finished ${rank + 1}th of 9: ${finished.join(', ')}`);
    } finally {
      await heavy.close();
      await light.close();
      await server.close();
    }
  });

  it('10 callers whose sessions fill maxSessions do not lock out an 11th', async () => {
    const server = new McpServer({ name: 'session-share', version: '1' });
    await server.listen({
      http: { port: 0, maxSessions: 20, maxSessionsPerCaller: 2, unusedSessionMs: 600_000 },
      handleSignals: false,
    });
    const url = `http://127.0.0.1:${server.addresses.http!.port}/mcp`;
    const initialize = async (from: string) => {
      const { status, id } = await initializeSession(url, fetchFrom(from));
      // Used, not bare: a bare session would make room by the older rule alone.
      if (id !== null) await pingSession(url, id, fetchFrom(from));
      return status;
    };
    try {
      for (let host = 2; host <= 11; host++) {
        for (let i = 0; i < 2; i++) assert.equal(await initialize(`127.0.0.${host}`), 200);
      }
      assert.equal(server.stats.tables.sessions, 20);
      assert.equal(await initialize('127.0.0.12'), 200, 'the 11th caller is served');
      assert.equal(server.stats.tables.sessions, 20, 'by taking one idle session of a biggest holder');
    } finally {
      await server.close();
    }
  });

  it("one principal holding every listen stream leaves room for another principal's listen; its share is bounded", async () => {
    const server = new McpServer({
      name: 'listen-share',
      version: '1',
      bounds: { maxListens: 40, maxListensPerCaller: 30 },
    });
    await server.listen({ ws: { port: 0, auth: userHook }, handleSignals: false });
    const url = `ws://127.0.0.1:${server.addresses.ws!.port}`;
    const sockets: WebSocket[] = [];
    try {
      // Alice: 30 of her 40 attempts acknowledged, the rest refused by her share.
      const alice = await wsPeer(url, 'alice');
      sockets.push(alice.socket);
      for (let id = 1; id <= 40; id++) alice.socket.send(listen(id));
      await until(() => alice.received.length >= 40, 'an answer to every listen of alice');
      assert.equal(acks(alice.received), 30);
      const refused = alice.received.filter(
        (message) => message.error?.data?.limit === 'maxListensPerCaller',
      );
      assert.equal(refused.length, 10);
      assert.match(refused[0].error.message, /bounds\.maxListensPerCaller allows 30/);
      // Carol fills the server (40); Bob's first listen takes Alice's oldest stream, not a refusal.
      const carol = await wsPeer(url, 'carol');
      sockets.push(carol.socket);
      for (let id = 1; id <= 10; id++) carol.socket.send(listen(id));
      await until(() => acks(carol.received) === 10, 'carol acknowledged');
      assert.equal(server.stats.tables.listens, 40);
      sockets.push(await listenAcknowledged(url, 'bob'));
      await until(
        () => alice.received.some((message) => message.id === 1 && 'result' in message),
        "alice's oldest ended",
      );
      assert.equal(server.stats.tables.listens, 40);
    } finally {
      for (const socket of sockets) socket.close();
      await server.close();
    }
  });

  it("at the defaults, one principal's 10,000 listens and 999 sockets leave room for another principal's listen and socket", async () => {
    const server = new McpServer({ name: 'share-defaults', version: '1' });
    await server.listen({ ws: { port: 0, auth: userHook }, handleSignals: false });
    const url = `ws://127.0.0.1:${server.addresses.ws!.port}`;
    const sockets: WebSocket[] = [];
    try {
      // Alice asks for 999 sockets: her share (100) opens, the rest get 429.
      const alice: Awaited<ReturnType<typeof wsPeer>>[] = [];
      let refused = 0;
      for (let i = 0; i < 999; i++) {
        if (alice.length < 100) {
          const peer = await wsPeer(url, 'alice');
          alice.push(peer);
          sockets.push(peer.socket);
        } else if ((await upgradeStatus(url, { 'x-user': 'alice' })) === 429) refused++;
      }
      assert.equal(refused, 899);
      // 10,000 listens over 157 x 64 before; over her 100 sockets here, 1,000 are hers.
      for (const [index, peer] of alice.entries()) {
        for (let id = 1; id <= 100; id++) peer.socket.send(listen(index * 1_000 + id));
      }
      await until(
        () => alice.every((peer) => peer.received.length >= 100),
        'every listen of alice answered',
        60_000,
      );
      const opened = alice.reduce((sum, peer) => sum + acks(peer.received), 0);
      assert.equal(opened, 1_000, "alice's share of listen streams");
      sockets.push(await listenAcknowledged(url, 'bob'));
    } finally {
      for (const socket of sockets) socket.terminate();
      await server.close();
    }
  });

  it("one principal holding every socket leaves room for another principal's; its share is bounded", async () => {
    const server = new McpServer({ name: 'socket-share', version: '1' });
    await server.listen({
      ws: { port: 0, auth: userHook, maxConnections: 12, maxConnectionsPerCaller: 10 },
      handleSignals: false,
    });
    const url = `ws://127.0.0.1:${server.addresses.ws!.port}`;
    const sockets: WebSocket[] = [];
    try {
      for (let i = 0; i < 10; i++) sockets.push(await openSocket(url, { headers: { 'x-user': 'alice' } }));
      assert.equal(await upgradeStatus(url, { 'x-user': 'alice' }), 429, "alice's share is 10");
      for (let i = 0; i < 2; i++) sockets.push(await openSocket(url, { headers: { 'x-user': 'carol' } }));
      const closed = new Promise<[number, string]>((resolve) =>
        sockets[0]!.once('close', (code, reason) => resolve([code, String(reason)])),
      );
      sockets.push(await openSocket(url, { headers: { 'x-user': 'bob' } }));
      assert.deepEqual(
        await closed,
        [MADE_ROOM_CLOSE.code, MADE_ROOM_CLOSE.reason],
        "alice's oldest made room",
      );
    } finally {
      for (const socket of sockets) socket.terminate();
      await server.close();
    }
  });

  it("an anonymous modern client's task flood does not evict another address's finished results", async () => {
    const store = new MemoryTaskStore({ limits: { maxPerCaller: 5, maxTasks: 100 } });
    const server = new McpServer({ name: 'task-share', version: '1', tasks: { store } }).tool({
      name: 'echo',
      task: 'required',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      handler: ({ text }) => String(text),
    });
    await server.listen({ http: { port: 0 }, handleSignals: false });
    const url = `http://127.0.0.1:${server.addresses.http!.port}/mcp`;
    const mine = new ModernHttpPeer(url, fetchFrom('127.0.0.2'));
    const flood = new ModernHttpPeer(url, fetchFrom('127.0.0.1'));
    const create = async (peer: ModernHttpPeer, text: string) => {
      const answer = await modernAnswer(
        peer,
        'tools/call',
        { name: 'echo', arguments: { text } },
        { capabilities: TASKS },
      );
      assert.ok(answer.result?.taskId, JSON.stringify(answer));
      return answer.result.taskId as string;
    };
    const status = async (peer: ModernHttpPeer, taskId: string) =>
      modernAnswer(peer, 'tasks/get', { taskId }, { capabilities: TASKS });
    try {
      const kept = await create(mine, 'mine');
      for (let i = 0; i < 20; i++) await create(flood, `flood ${i}`);
      const read = await status(mine, kept);
      assert.ok(read.result, `my task is still there: ${JSON.stringify(read)}`);
    } finally {
      await server.close();
    }
  });
});
