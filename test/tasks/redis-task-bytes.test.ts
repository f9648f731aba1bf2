/**
 * The task stores cap result bytes, not only counts (issue 29, item 5): per caller
 * (`maxBytesPerCaller`) and in all (`maxBytes`), the oldest finished records make room at creation,
 * a task whose room is held by running ones is refused before it exists, a result written at update
 * evicts older finished records but never itself, and expired records give their bytes back. The
 * same cases run on the memory store and on the Redis store (one real redis-server), so both keep
 * the same semantics; the Redis store also counts one set of bytes across two replicas and leaves
 * no per-caller key behind once a caller's records have expired.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { ErrorCode } from '../../lib/protocol/error-codes.js';
import { ProtocolError } from '../../lib/protocol/protocol-error.js';
import { MemoryTaskStore } from '../../lib/tasks/memory-task-store.js';
import { RedisTaskStore } from '../../lib/tasks/redis-task-store.js';
import type { TaskLimits } from '../../lib/tasks/task-limits.js';
import type { TaskStore } from '../../lib/tasks/task-store.js';
import { type RedisUnderTest, redisMissing, startRedis } from '../support/redis-server.js';
import { record } from './task-store-contract.js';

/** About 10 kB: each record below weighs about this much once it carries it. */
const TEN_KB = 'x'.repeat(10_000);

const running = (principal: string, ttlMs: number | null = 60_000) =>
  record({ principal, state: TEN_KB, ttlMs });

/** Creates a small record and finishes it with a result of `size` characters. */
async function finished(store: TaskStore, principal: string, size = 10_000) {
  const task = record({ principal });
  await store.create(task);
  const done = await store.update(task.taskId, {
    status: 'completed',
    result: { content: [{ type: 'text', text: 'x'.repeat(size) }] },
  });
  assert.equal(done?.status, 'completed');
  return task;
}

async function refusalOf(creating: Promise<void>): Promise<ProtocolError> {
  const error = await creating.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  assert.ok(error instanceof ProtocolError, `refused: ${String(error)}`);
  return error;
}

/** The cases both stores must pass; `open` makes a store with the given limits over a fresh backend. */
function byteBounds(open: (limits: TaskLimits) => TaskStore): void {
  it("evicts a caller's finished records, oldest first, to admit a new one under maxBytesPerCaller", async () => {
    const store = open({ maxBytesPerCaller: 35_000 });
    const others = await finished(store, 'issuer other');
    const [first, second, third] = [
      await finished(store, 'issuer a'),
      await finished(store, 'issuer a'),
      await finished(store, 'issuer a'),
    ];
    const next = running('issuer a');
    await store.create(next);
    assert.equal(await store.get(first.taskId), undefined, 'the oldest finished record made room');
    assert.equal((await store.get(second.taskId))?.status, 'completed', 'only as much as needed');
    assert.equal((await store.get(third.taskId))?.status, 'completed');
    assert.equal((await store.get(next.taskId))?.status, 'working');
    assert.equal((await store.get(others.taskId))?.status, 'completed', "another caller's records stay");
  });

  it('refuses, before it exists, a task whose room is held by running records (maxBytesPerCaller)', async () => {
    const store = open({ maxBytesPerCaller: 25_000 });
    await store.create(running('issuer a'));
    await store.create(running('issuer a'));
    const refused = running('issuer a');
    const error = await refusalOf(store.create(refused));
    assert.equal(error.code, ErrorCode.LimitExceeded);
    const data = error.data as { limit: string; max: number; retryAfterMs: number };
    assert.equal(data.limit, 'maxBytesPerCaller');
    assert.equal(data.max, 25_000);
    assert.ok(data.retryAfterMs > 0 && data.retryAfterMs <= 60_000, String(data.retryAfterMs));
    assert.equal(await store.get(refused.taskId), undefined, 'no record was created');
    await store.create(running('issuer b')); // another caller has room of its own
  });

  it('evicts older finished records of any caller when a result written at update passes maxBytes, never that one', async () => {
    const store = open({ maxBytes: 35_000 });
    const [a1, a2] = [await finished(store, 'issuer a'), await finished(store, 'issuer a')];
    const b = await finished(store, 'issuer b', 20_000);
    assert.equal(
      await store.get(a1.taskId),
      undefined,
      "the oldest finished record (another caller's) made room",
    );
    assert.equal((await store.get(a2.taskId))?.status, 'completed', 'only as much as needed');
    assert.equal((await store.get(b.taskId))?.status, 'completed');
    // A result larger than the whole bound: everything older goes, the new result stays.
    const c = await finished(store, 'issuer c', 40_000);
    assert.equal(await store.get(a2.taskId), undefined);
    assert.equal(await store.get(b.taskId), undefined);
    const kept = (await store.get(c.taskId))?.result as { content: { text: string }[] } | undefined;
    assert.equal(kept?.content[0]?.text.length, 40_000, 'the record just written is kept whole');
  });

  it('gives the room of expired records back at once, not at a later sweep', async () => {
    const store = open({ maxBytesPerCaller: 25_000, maxBytes: 25_000 });
    await store.create(running('issuer a', 300));
    await store.create(running('issuer a', 300));
    const held = await refusalOf(store.create(running('issuer a')));
    assert.equal((held.data as { limit: string }).limit, 'maxBytesPerCaller');
    await new Promise((resolve) => setTimeout(resolve, 800));
    // Nobody read the expired records: their room must come back all the same.
    await store.create(running('issuer a'));
    await store.create(running('issuer a'));
  });
}

describe('MemoryTaskStore: byte limits', () => {
  const stores: TaskStore[] = [];
  after(() => Promise.all(stores.map((store) => store.close())));
  byteBounds((limits) => {
    const store = new MemoryTaskStore({ limits });
    stores.push(store);
    return store;
  });
});

describe('RedisTaskStore: byte limits', { skip: redisMissing() }, () => {
  let redis: RedisUnderTest;
  let raw: Redis;
  const stores: TaskStore[] = [];
  before(async () => {
    redis = await startRedis();
    raw = new Redis(redis.url);
  });
  after(async () => {
    await Promise.all(stores.map((store) => store.close()));
    raw.disconnect();
    await redis.stop();
  });
  const open = (limits: TaskLimits, keyPrefix = `bytes-${randomUUID()}:`) => {
    const store = new RedisTaskStore({ url: redis.url, keyPrefix, limits });
    stores.push(store);
    return store;
  };

  byteBounds((limits) => open(limits));

  it('gives the bytes of expired records back, per caller and in all, and keeps no caller key', async () => {
    const keyPrefix = `bytes-${randomUUID()}:`;
    const store = open({ maxBytesPerCaller: 25_000, maxBytes: 25_000 }, keyPrefix);
    await store.create(running('issuer a', 500));
    await store.create(running('issuer a', 500));
    const mine = await refusalOf(store.create(running('issuer a')));
    assert.equal((mine.data as { limit: string }).limit, 'maxBytesPerCaller');
    const theirs = await refusalOf(store.create(running('issuer b')));
    assert.equal((theirs.data as { limit: string }).limit, 'maxBytes');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const callerKeys = await raw.keys(`${keyPrefix}task-*:principal issuer a`);
    assert.deepEqual(callerKeys, [], 'nothing is kept for a caller whose records all expired');
    // Expired by Redis itself (PX): their bytes left the caller's total and the store's.
    await store.create(running('issuer a'));
    await store.create(running('issuer a'));
    const now = await refusalOf(store.create(running('issuer b')));
    assert.equal((now.data as { limit: string }).limit, 'maxBytes', 'the totals still count what is live');
  });

  it('counts the same bytes on two replicas sharing one Redis', async () => {
    const keyPrefix = `bytes-${randomUUID()}:`;
    const [one, two] = [
      open({ maxBytesPerCaller: 25_000 }, keyPrefix),
      open({ maxBytesPerCaller: 25_000 }, keyPrefix),
    ];
    const first = running('issuer a');
    await one.create(first);
    await two.create(running('issuer a'));
    const refused = await refusalOf(one.create(running('issuer a')));
    assert.equal((refused.data as { limit: string }).limit, 'maxBytesPerCaller');
    assert.equal((await refusalOf(two.create(running('issuer a')))).code, ErrorCode.LimitExceeded);
    // Finished on one replica, evicted to admit the next on the other.
    await two.update(first.taskId, { status: 'completed', result: { content: [] } });
    const next = running('issuer a');
    await one.create(next);
    assert.equal(await two.get(first.taskId), undefined);
    assert.equal((await two.get(next.taskId))?.status, 'working');
  });

  it('keeps every total equal to the bytes of the records it counts, through churn on two replicas', async () => {
    const keyPrefix = `bytes-${randomUUID()}:`;
    const limits = { maxPerCaller: 4, maxBytesPerCaller: 30_000, maxTasks: 8, maxBytes: 60_000 };
    const replicas = [open(limits, keyPrefix), open(limits, keyPrefix)];
    let seed = 29;
    const next = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % below;
    };
    const made: string[] = [];
    for (let step = 0; step < 120; step++) {
      const store = replicas[next(2)]!;
      const principal = `issuer caller-${next(3)}`;
      if (next(3) > 0 || made.length === 0) {
        const task = record({ principal, state: 'x'.repeat(next(12_000)), ttlMs: next(4) ? 60_000 : 150 });
        try {
          await store.create(task);
          made.push(task.taskId);
        } catch (error) {
          assert.equal((error as ProtocolError).code, ErrorCode.LimitExceeded);
        }
      } else {
        const text = 'x'.repeat(next(25_000));
        await store.update(made[next(made.length)]!, {
          status: 'completed',
          result: { content: [{ text }] },
        });
      }
      if (step % 40 === 39) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const scopes = ['', ...[0, 1, 2].map((n) => `:principal issuer caller-${n}`)];
    for (const tail of scopes) {
      const ids = await raw.zrange(`${keyPrefix}${tail ? 'task-callers' : 'task-all'}${tail}`, 0, -1);
      const sizes = await raw.hgetall(`${keyPrefix}task-sizes${tail}`);
      assert.deepEqual(Object.keys(sizes).sort(), [...ids].sort(), `scope "${tail}": one size per id`);
      const sum = Object.values(sizes).reduce((total, size) => total + Number(size), 0);
      assert.equal(
        Number((await raw.get(`${keyPrefix}task-bytes${tail}`)) ?? 0),
        sum,
        `scope "${tail}": total`,
      );
      for (const id of ids) {
        const text = await raw.get(`${keyPrefix}task:${id}`);
        if (text !== null) assert.equal(Number(sizes[id]), Buffer.byteLength(text), `record ${id}'s size`);
      }
    }
    const stored = (await raw.keys(`${keyPrefix}task:*`)).map((key) => key.slice(`${keyPrefix}task:`.length));
    const counted = new Set(await raw.zrange(`${keyPrefix}task-all`, 0, -1));
    assert.deepEqual(
      stored.filter((id) => !counted.has(id)),
      [],
      'every stored record is counted',
    );
  });
});
