/**
 * Item 5 of the hardening issue: legacy sessions cannot be used up. A session that made no request
 * after its initialize expires in `unusedSessionMs` and is the first evicted when `maxSessions` is
 * reached, so a flood of bare initializes does not keep a new client out (it used to get 503 for the
 * whole idle timeout); a legacy SSE reader that stops reading has its stream cut at
 * `maxStreamBacklogBytes`; and replay events have one byte bound across all sessions.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { describe, it } from 'node:test';
import { McpServer } from '../../lib/index.js';
import * as eventStore from '../../lib/transports/event-store.js';
import type { StreamableHttpOptions } from '../../lib/transports/streamable-http.js';
import { initializeSession, pingSession } from '../support/legacy-session.js';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const initialize = (url: string) => initializeSession(url);
const ping = (url: string, session: string) => pingSession(url, session);

async function serving(http: StreamableHttpOptions, run: (url: string, server: McpServer) => Promise<void>) {
  const server = new McpServer({ name: 'legacy-sessions', version: '1' }).resource({
    uri: 'app://news',
    name: 'news',
    read: () => 'fresh',
  });
  await server.listen({ http: { port: 0, ...http }, handleSignals: false });
  try {
    await run(`http://127.0.0.1:${server.addresses.http!.port}/mcp`, server);
  } finally {
    await server.close();
  }
}

describe('security: legacy sessions cannot be used up', () => {
  it('a table full of unused sessions makes room for a new client; sessions in use are kept', async () => {
    await serving({ maxSessions: 20, unusedSessionMs: 600_000 }, async (url) => {
      const used = await initialize(url);
      assert.equal(await ping(url, used.id!), 200);
      for (let i = 0; i < 19; i++) assert.equal((await initialize(url)).status, 200);
      // Full now: every further initialize evicts the oldest unused session instead of a 503.
      for (let i = 0; i < 40; i++) {
        const next = await initialize(url);
        assert.equal(next.status, 200, `initialize ${i} past the limit`);
      }
      assert.equal(await ping(url, used.id!), 200, 'the session in use is still there');
    });
  });

  it('a table full of sessions in use still answers 503', async () => {
    await serving({ maxSessions: 3, unusedSessionMs: 600_000 }, async (url) => {
      for (let i = 0; i < 3; i++) assert.equal(await ping(url, (await initialize(url)).id!), 200);
      assert.equal((await initialize(url)).status, 503);
    });
  });

  it('a session unused after initialize expires in unusedSessionMs; one in use does not', async () => {
    await serving({ unusedSessionMs: 200, sessionIdleMs: 600_000 }, async (url) => {
      const bare = await initialize(url);
      const used = await initialize(url);
      assert.equal(await ping(url, used.id!), 200);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      assert.equal(await ping(url, bare.id!), 404, 'the unused session expired');
      assert.equal(await ping(url, used.id!), 200, 'the used session lives on');
    });
  });

  it('a legacy GET stream that is never read is cut past maxStreamBacklogBytes', async () => {
    await serving({ maxStreamBacklogBytes: 64 * 1024 }, async (url, server) => {
      const { id } = await initialize(url);
      const subscribed = await fetch(url, {
        method: 'POST',
        headers: { ...HEADERS, 'mcp-session-id': id!, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'resources/subscribe',
          params: { uri: 'app://news' },
        }),
      });
      assert.equal(subscribed.status, 200, await subscribed.text());
      let ended = false;
      const opened = new Promise<{ pause(): void; resume(): void }>((resolve, reject) => {
        const get = httpRequest(url, {
          method: 'GET',
          headers: {
            accept: 'text/event-stream',
            'mcp-session-id': id!,
            'mcp-protocol-version': '2025-11-25',
          },
        });
        get.on('response', (response) => {
          response.on('close', () => {
            ended = true;
          });
          response.on('error', () => {});
          resolve(response);
        });
        get.on('error', reject);
        get.end();
      });
      const stream = await opened;
      stream.pause();
      // 30 MB of notifications on the standalone stream: far more than a loopback socket buffers.
      for (let i = 0; i < 300; i++) {
        for (let j = 0; j < 1000; j++) server.resourceUpdated('app://news');
        await new Promise((resolve) => setImmediate(resolve));
        if (ended) break;
      }
      stream.resume();
      const deadline = Date.now() + 10_000;
      while (!ended && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.ok(ended, 'the stalled stream was cut');
      assert.equal(await ping(url, id!), 200, 'the session itself lives on');
    });
  });

  it('replay events have one byte bound across all sessions, oldest dropped first', () => {
    const { EventStore, ReplayBudget } = eventStore as unknown as {
      EventStore: new (maxEvents: number, maxBytes: number, budget?: unknown) => eventStore.EventStore;
      ReplayBudget?: new (maxBytes: number) => { bytes: number };
    };
    assert.ok(ReplayBudget, 'there is a budget shared by the sessions');
    const budget = new ReplayBudget(1000);
    const a = new EventStore(1000, 16 * 1024 * 1024, budget);
    const b = new EventStore(1000, 16 * 1024 * 1024, budget);
    a.openStream('s');
    b.openStream('s');
    const event = 'x'.repeat(100);
    for (let i = 0; i < 30; i++) (i % 2 === 0 ? a : b).append('s', event);
    assert.ok(budget.bytes <= 1000, `${budget.bytes} bytes kept`);
    const keptA = a.after('s_0')!.events.map((stored) => stored.id);
    const keptB = b.after('s_0')!.events.map((stored) => stored.id);
    assert.equal(keptA.length + keptB.length, 10);
    // The newest ten of the thirty arrivals: events 11..15 of each store.
    assert.deepEqual(keptA, ['s_11', 's_12', 's_13', 's_14', 's_15']);
    assert.deepEqual(keptB, ['s_11', 's_12', 's_13', 's_14', 's_15']);
  });
});
