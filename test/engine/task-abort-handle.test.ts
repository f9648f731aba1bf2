/**
 * The pool executor aborts Piscina tasks through TaskAbortHandle instead of an AbortController.
 * These tests hold it to what Piscina needs of a signal, against a real pool running weft's own
 * pool entry: a running task is stopped and its thread replaced, an aborted handle refuses to
 * start a task, a finished task no longer listens, and the handle hears that Piscina is done with
 * a task before the task's promise settles (the pool executor frees the thread's slot there).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { TaskAbortHandle } from '../../lib/engine/task-abort-handle.js';
import type { PoolTask, PoolTaskResult } from '../../lib/engine/worker-protocol.js';
import { rawPool } from '../support/raw-pool.js';

const { pool, task } = rawPool();
after(() => pool.destroy());

const busyTask = (ms: number): PoolTask => task('busy', { ms }, 0); // one task runs at a time here

describe('TaskAbortHandle as a Piscina task signal', () => {
  it('stops a running task at once and the pool serves the next call on a new thread', async () => {
    const handle = new TaskAbortHandle();
    const threadsBefore = new Set(pool.threads);
    const started = Date.now();
    const running = pool.run(busyTask(60_000), { signal: handle });
    await new Promise((resolve) => setTimeout(resolve, 300));
    handle.abort();
    await assert.rejects(running, { name: 'AbortError' });
    assert.ok(Date.now() - started < 10_000, 'the 60 s loop was not stopped');
    assert.equal(handle.aborted, true);

    const next = (await pool.run(busyTask(1))) as PoolTaskResult;
    assert.deepEqual(next, { ok: true, value: 'busy 1', events: 0 });
    assert.ok(
      pool.threads.every((thread) => !threadsBefore.has(thread)),
      'the thread that ran the aborted task is still in the pool',
    );
  });

  it('refuses to start a task whose handle is already aborted', async () => {
    const handle = new TaskAbortHandle();
    handle.abort();
    await assert.rejects(pool.run(busyTask(1), { signal: handle }), { name: 'AbortError' });
  });

  it('stops listening once the task has finished, so a late abort changes nothing', async () => {
    const handle = new TaskAbortHandle();
    const result = (await pool.run(busyTask(1), { signal: handle })) as PoolTaskResult;
    assert.equal(result.ok, true);
    const threadsBefore = [...pool.threads];
    handle.abort();
    assert.deepEqual([...pool.threads], threadsBefore, 'a late abort terminated a thread');
  });

  it('tells onSettled, once, that Piscina is done with the task before its promise settles', async () => {
    const order: string[] = [];
    const handle = new TaskAbortHandle(() => order.push('settled'));
    const result = pool.run(busyTask(1), { signal: handle }).then(() => order.push('promise'));
    await result;
    handle.off('abort', () => {});
    assert.deepEqual(order, ['settled', 'promise']);
  });

  it('tells onSettled when a running task is aborted (the executor then waits for the thread to exit)', async () => {
    let running = 0;
    const runningHandle = new TaskAbortHandle(() => running++);
    const task = pool.run(busyTask(60_000), { signal: runningHandle });
    await new Promise((resolve) => setTimeout(resolve, 300));
    runningHandle.abort();
    await assert.rejects(task, { name: 'AbortError' });
    assert.equal(running, 1);
  });

  it('calls a listener once, however often it is aborted, and forgets a removed one', () => {
    const handle = new TaskAbortHandle();
    let calls = 0;
    const listener = () => calls++;
    handle.once('abort', listener);
    handle.abort();
    handle.abort();
    assert.equal(calls, 1);

    const other = new TaskAbortHandle();
    other.once('abort', listener);
    other.off('abort', listener);
    other.abort();
    assert.equal(calls, 1);
  });
});
