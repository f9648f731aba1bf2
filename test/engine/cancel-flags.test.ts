/**
 * Cancel flags live in one shared buffer per pool, a slot per running call (cancel-flags.ts). These
 * tests hold the slots to their contract: a lease starts cleared, slots are reused only once given
 * back, running out is an error and never a shared flag, and, against a real pool running weft's own
 * pool entry, a flag written by the main thread reaches the handler through its slot while stray
 * code a finished handler left behind can no longer touch the slot's next call.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { AbandonCode, FLAG_SLOTS } from '../../lib/engine/abandon-reason.js';
import { CancelFlags, FLAG_LENGTH } from '../../lib/engine/cancel-flags.js';
import { CallLife } from '../../lib/engine/thread-life.js';
import type { PoolTaskResult } from '../../lib/engine/worker-protocol.js';
import { rawPool } from '../support/raw-pool.js';

describe('CancelFlags', () => {
  it('leases distinct slots, cleared, and reuses a slot only after it is given back', () => {
    const flags = new CancelFlags(2);
    const first = flags.lease();
    const second = flags.lease();
    assert.notEqual(first, second);
    assert.equal(flags.available, 0);
    assert.equal(flags.flag(first).buffer, flags.buffer);
    assert.equal(flags.flag(first).length, FLAG_LENGTH);

    Atomics.store(flags.flag(first), FLAG_SLOTS.reason, AbandonCode.Cancelled);
    Atomics.store(flags.flag(first), FLAG_SLOTS.watching, 1);
    Atomics.store(flags.flag(first), FLAG_SLOTS.life, CallLife.Finished);
    Atomics.store(flags.flag(first), FLAG_SLOTS.thread, 7);
    flags.giveBack(first);
    const again = flags.lease();
    assert.equal(again, first);
    assert.deepEqual([...flags.flag(again)], [AbandonCode.Running, 0, CallLife.NotStarted, 0]);
  });

  it('refuses to lease past its capacity, saying so, rather than share a flag', () => {
    const flags = new CancelFlags(1);
    flags.lease();
    assert.throws(() => flags.lease(), /all 1 cancel flags of a thread pool are in use/);
  });
});

describe('cancel flag slots in a real pool', () => {
  const { pool, flags, task } = rawPool();
  after(() => pool.destroy());
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('a reason stored in the slot stops a cooperative handler', async () => {
    const slot = flags.lease();
    const running: Promise<PoolTaskResult> = pool.run(task('cooperative', { ms: 60_000 }, slot));
    // Until the handler has started: a thread that imports its module on a loaded machine (load
    // average 10 on 2 cores) can take longer than any fixed sleep short enough for a unit test.
    const until = Date.now() + 10_000;
    while (Atomics.load(flags.flag(slot), FLAG_SLOTS.watching) === 0 && Date.now() < until) await sleep(10);
    assert.equal(
      Atomics.load(flags.flag(slot), FLAG_SLOTS.watching),
      1,
      'the handler marked its flag as watched',
    );
    Atomics.store(flags.flag(slot), FLAG_SLOTS.reason, AbandonCode.Cancelled);
    const result = await running;
    assert.equal(result.ok, false);
    assert.equal(result.ok === false && result.abandoned, true);
    flags.giveBack(slot);
  });

  it("a finished handler's stray timer does not touch the next call in its slot", async () => {
    const first = flags.lease();
    const done: PoolTaskResult = await pool.run(task('lingering', { afterMs: 150 }, first));
    assert.deepEqual(done, { ok: true, value: 'returned', events: 0 });
    flags.giveBack(first);

    const next = flags.lease();
    assert.equal(next, first, 'the slot is reused');
    const running: Promise<PoolTaskResult> = pool.run(task('idle', { ms: 400 }, next));
    await sleep(300); // the stray checkpoint ran at 150 ms, in the same thread, during this call
    assert.equal(
      Atomics.load(flags.flag(next), FLAG_SLOTS.watching),
      0,
      'the idle call never watched its flag',
    );
    assert.equal((await running).ok, true);
    flags.giveBack(next);
  });
});
