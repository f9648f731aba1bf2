/**
 * Cancellation replaces a per-call AbortController on the hot path; these tests hold it to what the
 * engine relies on: listeners run once, in order, with the reason; a removed listener never runs;
 * a late listener is not called; and the AbortSignal made for APIs that need one agrees with it,
 * whether it was made before or after the cancel.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Cancellation, type CancelReason } from '../../lib/engine/cancellation.js';

describe('Cancellation', () => {
  it('runs its listeners once, in order, with the reason, and keeps the first reason', () => {
    const cancellation = new Cancellation();
    const heard: string[] = [];
    cancellation.onCancel((reason) => heard.push(`first:${reason}`));
    cancellation.onCancel((reason) => heard.push(`second:${reason}`));
    assert.equal(cancellation.cancelled, false);
    cancellation.cancel('shutdown');
    cancellation.cancel('cancelled');
    assert.deepEqual(heard, ['first:shutdown', 'second:shutdown']);
    assert.equal(cancellation.reason, 'shutdown');
    assert.equal(cancellation.cancelled, true);
  });

  it('never calls a listener that was removed, nor one added after the cancel', () => {
    const cancellation = new Cancellation();
    const heard: CancelReason[] = [];
    const removed = (reason: CancelReason) => heard.push(reason);
    cancellation.onCancel(removed);
    cancellation.offCancel(removed);
    cancellation.cancel();
    cancellation.onCancel((reason) => heard.push(reason));
    assert.deepEqual(heard, []);
    assert.equal(cancellation.reason, 'cancelled');
  });

  it('gives an AbortSignal that aborts with the same reason, made before or after the cancel', () => {
    const early = new Cancellation();
    const signal = early.signal;
    assert.equal(signal.aborted, false);
    early.cancel('shutdown');
    assert.equal(signal.aborted, true);
    assert.equal(signal.reason, 'shutdown');

    const late = new Cancellation();
    late.cancel();
    assert.equal(late.signal.aborted, true);
    assert.equal(late.signal.reason, 'cancelled');
    assert.equal(late.signal, late.signal, 'one signal per cancellation');
  });
});
