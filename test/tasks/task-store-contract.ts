/**
 * What every TaskStore must do, as one suite that each store runs (memory, Redis): durable create,
 * terminal records frozen, expiry after ttlMs for every reader, owner-scoped listing by id, and
 * signals that reach every subscriber (across stores sharing a backend, when `second` is given).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import type { TaskRecord } from '../../lib/tasks/task-record.js';
import type { TaskSignal, TaskStore } from '../../lib/tasks/task-store.js';

export interface StoreUnderTest {
  /** A store; `second` is another instance over the same backend (another replica), if any. */
  store: TaskStore;
  second?: TaskStore;
}

export function record(overrides: Partial<TaskRecord> = {}): TaskRecord {
  const now = Date.now();
  return {
    taskId: randomUUID(),
    era: 'modern',
    tool: 'spin',
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 60_000,
    pollIntervalMs: 500,
    ...overrides,
  };
}

async function eventually<T>(read: () => Promise<T | undefined>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export function storeContract(open: () => StoreUnderTest): void {
  it('finds a record as soon as create resolves, from every instance', async () => {
    const { store, second } = open();
    const task = record({ result: { content: [{ type: 'text', text: 'ok' }] } });
    await store.create(task);
    assert.deepEqual(await store.get(task.taskId), task);
    if (second) assert.deepEqual(await second.get(task.taskId), task);
    assert.equal(await store.get('no-such-task'), undefined);
  });

  it('applies changes, removes fields set to undefined, and moves lastUpdatedAt forward', async () => {
    const { store, second } = open();
    const task = record({ createdAt: Date.now() - 1_000, lastUpdatedAt: Date.now() - 1_000 });
    await store.create(task);
    const waiting = await store.update(task.taskId, {
      status: 'input_required',
      inputRequests: { a: { method: 'elicitation/create', params: { message: 'x' } } },
    });
    assert.equal(waiting?.status, 'input_required');
    assert.ok(waiting!.lastUpdatedAt > task.lastUpdatedAt);
    const working = await (second ?? store).update(task.taskId, {
      status: 'working',
      inputRequests: undefined,
    });
    assert.equal(working?.inputRequests, undefined);
    assert.equal((await store.get(task.taskId))?.status, 'working');
  });

  it('never changes a terminal record again', async () => {
    const { store, second } = open();
    const task = record();
    await store.create(task);
    assert.equal((await store.update(task.taskId, { status: 'cancelled' }))?.status, 'cancelled');
    assert.equal(
      await (second ?? store).update(task.taskId, { status: 'completed', result: { content: [] } }),
      undefined,
    );
    const now = await store.get(task.taskId);
    assert.equal(now?.status, 'cancelled');
    assert.equal(now?.result, undefined);
    assert.equal(await store.update('no-such-task', { status: 'failed' }), undefined);
  });

  it('forgets a record for every reader once its ttlMs has passed', async () => {
    const { store, second } = open();
    const task = record({ ttlMs: 300 });
    const forever = record({ ttlMs: null });
    await store.create(task);
    await store.create(forever);
    assert.ok(await store.get(task.taskId));
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    assert.equal(await store.get(task.taskId), undefined);
    if (second) assert.equal(await second.get(task.taskId), undefined);
    assert.equal(await store.update(task.taskId, { status: 'failed' }), undefined);
    assert.ok(await store.get(forever.taskId));
  });

  it("lists one owner's records in taskId order, page after page", async () => {
    const { store } = open();
    const owner = randomUUID();
    const ids = ['b', 'a', 'd', 'c', 'e'].map((letter) => `${letter}-${randomUUID()}`);
    for (const taskId of ids) await store.create(record({ taskId, era: 'legacy', owner }));
    await store.create(record({ era: 'legacy', owner: randomUUID() }));
    const first = await store.list(owner, undefined, 3);
    const rest = await store.list(owner, first.at(-1)!.taskId, 3);
    assert.deepEqual(
      [...first, ...rest].map((task) => task.taskId),
      [...ids].sort(),
    );
  });

  it('delivers a signal to every subscriber, on every instance', async () => {
    const { store, second } = open();
    const heard: TaskSignal[] = [];
    const stops = [store.subscribe((signal) => heard.push(signal))];
    if (second) stops.push(second.subscribe((signal) => heard.push(signal)));
    await store.ready();
    await second?.ready();
    const taskId = randomUUID();
    await (second ?? store).signal({ kind: 'cancel', taskId });
    await eventually(async () => (heard.length >= stops.length ? true : undefined));
    assert.ok(heard.every((signal) => signal.kind === 'cancel' && signal.taskId === taskId));
    for (const stop of stops) stop();
  });
}
