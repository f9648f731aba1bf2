/**
 * Tables that grow with callers forget idle entries and have a hard cap. Without auth every modern
 * HTTP request is a caller of its own, so a flood of sequential blocking calls used to leave one
 * scheduler key per request for good (3,000 calls: 3,001 keys, +6.3 MB of heap); the per-caller
 * rate counters kept one entry per caller until a sweep that only a write could trigger.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LocalCallerCounts } from '../../lib/engine/caller-counts.js';
import { FairQueue } from '../../lib/engine/fair-queue.js';
import { McpServer } from '../../lib/index.js';
import { idle } from '../support/fixture-tools.js';
import { heapUsedAfterGc, MB } from '../support/heap.js';
import { ModernHttpPeer } from '../transports/modern-http-peer.js';

describe('security: the tables that grow with callers are bounded', () => {
  it('the fair queue forgets idle keys after idleKeyMs and never keeps more than maxKeys', () => {
    let now = 0;
    const queue = new FairQueue<string>({ idleKeyMs: 1_000, maxKeys: 100, now: () => now });
    for (let i = 0; i < 3_000; i++) {
      const owner = queue.keyOf({ key: `caller-${i}`, weight: 1 });
      const charged = queue.charge(owner);
      // Held longer than charged: each key leaves in debt, the case that used to be kept for good.
      queue.settle(owner, charged, charged + 5);
      now += 1;
    }
    assert.ok(queue.holdings().length <= 100, `${queue.holdings().length} keys kept (cap 100)`);
    now += 1_001;
    queue.keyOf({ key: 'late', weight: 1 });
    assert.equal(queue.holdings().length, 1, 'every key idle past idleKeyMs is forgotten');
  });

  it('a key with calls waiting or running is never dropped to make room', () => {
    const queue = new FairQueue<string>({ idleKeyMs: 1_000, maxKeys: 2 });
    const busy = queue.keyOf({ key: 'busy', weight: 1 });
    queue.charge(busy);
    const waiting = queue.keyOf({ key: 'waiting', weight: 1 });
    queue.push(waiting, 'tool', true, 'call');
    for (let i = 0; i < 10; i++) {
      const owner = queue.keyOf({ key: `other-${i}`, weight: 1 });
      const charged = queue.charge(owner);
      queue.settle(owner, charged, charged + 5);
    }
    const keys = queue.holdings().map((holding) => holding.key);
    assert.ok(keys.includes('busy') && keys.includes('waiting'), `kept: ${keys.join(', ')}`);
  });

  it('per-caller rate counters are capped, whatever the number of callers', () => {
    const counts = new LocalCallerCounts(Date.now, 1_000);
    for (let i = 0; i < 20_000; i++) {
      const entry = counts.enter([{ kind: 'callsPerMinute', scope: 'server', counter: `c${i}`, max: 10 }]);
      assert.ok(entry.passed);
      entry.leave();
    }
    assert.ok(counts.size <= 1_000, `${counts.size} counters kept (cap 1,000)`);
  });

  it('3,000 anonymous blocking calls over modern HTTP: keys stay within the cap, heap too, others served', async () => {
    const server = new McpServer({
      name: 'caller-flood',
      version: '1',
      pool: { maxThreads: 2 },
      limits: { perCaller: { callsPerMinute: 1_000_000 } },
      bounds: { maxCallerKeys: 256, callerIdleMs: 500 },
    }).tool(idle);
    await server.listen({ http: { port: 0 }, handleSignals: false });
    try {
      const peer = new ModernHttpPeer(`http://127.0.0.1:${server.addresses.http!.port}/mcp`);
      const call = async () => {
        const reply = await peer.request('tools/call', { name: 'idle', arguments: { ms: 0 } });
        assert.equal(reply.status, 200, JSON.stringify(reply.body));
        assert.equal(reply.body.result?.content?.[0]?.text, 'idled 0');
      };
      for (let i = 0; i < 50; i++) await call();
      const before = await heapUsedAfterGc();
      let done = 0;
      const flood = async () => {
        while (done < 3_000) {
          done++;
          await call();
        }
      };
      const floods = Promise.all([flood(), flood(), flood(), flood()]);
      // Another caller, meanwhile, is served.
      const started = performance.now();
      await call();
      const otherMs = performance.now() - started;
      await floods;
      const { callerKeys, callerCounters } = server.stats.tables;
      assert.ok(callerKeys <= 256, `${callerKeys} scheduler keys after 3,000 callers (cap 256)`);
      const grown = (await heapUsedAfterGc()) - before;
      assert.ok(grown < 4 * MB, `heap grew ${(grown / MB).toFixed(1)} MB over the flood`);
      assert.ok(otherMs < 5_000, `another caller waited ${otherMs.toFixed(0)} ms`);
      assert.ok(callerCounters <= 65_536, `${callerCounters} counters`);
      await new Promise((resolve) => setTimeout(resolve, 600));
      await call();
      assert.ok(server.stats.tables.callerKeys <= 2, 'idle keys are forgotten after callerIdleMs');
    } finally {
      await server.close();
    }
  });
});
