/**
 * Admission's queue (admission.ts): first come, first served within what each call needs, a bounded
 * length, and withdrawing. A release looks at the queue only when something in it could start; these
 * tests hold that shortcut to the same grants as a full scan, for calls that wait for a thread, calls
 * that wait only for their tool's own `concurrency`, and the two mixed in one queue.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Admission, OverloadedError, type Release } from '../../lib/engine/admission.js';
import type { RegisteredTool } from '../../lib/tools/registered-tool.js';

/** Admission reads only a tool's name and concurrency. */
const tool = (name: string, concurrency = Number.POSITIVE_INFINITY) =>
  ({ name, concurrency }) as unknown as RegisteredTool;

/** Queues a call and records the order in which calls are granted. */
function queue(
  admission: Admission,
  order: string[],
  label: string,
  t: RegisteredTool,
  needsThread: boolean,
) {
  const grants: Release[] = [];
  const wait = admission.enqueue(t, needsThread, (release) => {
    order.push(label);
    grants.push(release);
  });
  assert.ok(!(wait instanceof OverloadedError));
  return { wait, release: () => grants[0]!() };
}

describe('Admission', () => {
  it('grants thread waiters in order, one per freed thread', () => {
    const admission = new Admission({ threads: 2, maxQueue: 100 });
    const blocking = tool('spin');
    const first = admission.tryAcquire(blocking, true)!;
    const second = admission.tryAcquire(blocking, true)!;
    assert.equal(admission.tryAcquire(blocking, true), undefined);
    const order: string[] = [];
    const waiters = ['a', 'b', 'c', 'd'].map((label) => queue(admission, order, label, blocking, true));
    assert.equal(admission.queued, 4);
    first();
    assert.deepEqual(order, ['a']);
    second();
    assert.deepEqual(order, ['a', 'b']);
    waiters[0]!.release();
    waiters[1]!.release();
    assert.deepEqual(order, ['a', 'b', 'c', 'd']);
    assert.equal(admission.queued, 0);
    assert.equal(admission.freeThreads, 0);
    waiters[2]!.release();
    waiters[3]!.release();
    assert.equal(admission.freeThreads, 2);
  });

  it('grants a call that needs no thread behind thread waiters while every thread is busy', () => {
    const admission = new Admission({ threads: 1, maxQueue: 100 });
    const blocking = tool('spin');
    const limited = tool('lookup', 1);
    admission.tryAcquire(blocking, true);
    const held = admission.tryAcquire(limited, false)!;
    const order: string[] = [];
    queue(admission, order, 'thread-1', blocking, true);
    queue(admission, order, 'thread-2', blocking, true);
    queue(admission, order, 'inline', limited, false);
    held(); // the thread is still busy: only the inline call can start
    assert.deepEqual(order, ['inline']);
    assert.equal(admission.queued, 2);
  });

  it('skips no inline waiter after a withdrawn one, and counts withdrawals', () => {
    const admission = new Admission({ threads: 1, maxQueue: 100 });
    const blocking = tool('spin');
    const limited = tool('lookup', 1);
    admission.tryAcquire(blocking, true);
    const held = admission.tryAcquire(limited, false)!;
    const order: string[] = [];
    const gone = queue(admission, order, 'inline-withdrawn', limited, false);
    queue(admission, order, 'thread', blocking, true);
    queue(admission, order, 'inline', limited, false);
    assert.equal(gone.wait.withdraw(), true);
    assert.equal(gone.wait.withdraw(), false);
    held();
    assert.deepEqual(order, ['inline']);
  });

  it('refuses past maxQueue, saying how many wait', () => {
    const admission = new Admission({ threads: 1, maxQueue: 1 });
    const blocking = tool('spin');
    admission.tryAcquire(blocking, true);
    queue(admission, [], 'a', blocking, true);
    const refused = admission.enqueue(blocking, true, () => {});
    assert.ok(refused instanceof OverloadedError);
    assert.match(refused.message, /1 calls are already waiting \(maxQueue\)/);
  });
});
