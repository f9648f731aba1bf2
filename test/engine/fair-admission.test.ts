/**
 * Fair admission (fair-queue.ts through admission.ts), on a fake clock: a freed slot goes to the
 * waiting caller that has held the pool least, by pool time and weight; first come, first served
 * within a caller; fairness off is first come, first served across callers; a tool's own
 * concurrency still holds; and a caller's own `queued` limit refuses at once, naming the limit.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Admission, OverloadedError, type Release } from '../../lib/engine/admission.js';
import type { Caller } from '../../lib/engine/fair-queue.js';
import type { RegisteredTool } from '../../lib/tools/registered-tool.js';

const tool = (name: string, concurrency = Number.POSITIVE_INFINITY, limits?: unknown) =>
  ({ name, concurrency, limits }) as unknown as RegisteredTool;
const caller = (key: string, weight = 1): Caller => ({ key, weight });

/** A fake clock and a pool of `threads` slots whose calls each hold their slot for a set time. */
function bench(threads: number, fairness = true) {
  let now = 0;
  const admission = new Admission({ threads, maxQueue: 10_000, fairness, now: () => now });
  const granted: string[] = [];
  /** Calls running: when each ends, and its release. */
  const running: { endsAt: number; release: Release }[] = [];
  const spin = tool('spin');
  const submit = (who: Caller, holdMs: number, label = who.key) => {
    const start = (release: Release) => {
      granted.push(label);
      running.push({ endsAt: now + holdMs, release });
    };
    const free = admission.tryAcquire(spin, true, who);
    if (free) start(free);
    else {
      const wait = admission.enqueue(spin, true, start, who);
      assert.ok(!(wait instanceof OverloadedError));
    }
  };
  /** Advances the clock to the next call's end and releases it (which grants the next). */
  const step = () => {
    running.sort((a, b) => a.endsAt - b.endsAt);
    const next = running.shift()!;
    now = next.endsAt;
    next.release();
  };
  return { admission, granted, submit, step, running, at: () => now };
}

describe('Fair admission', () => {
  it('gives a freed slot to the caller with one call waiting, ahead of a caller with 32', () => {
    const b = bench(2);
    for (let i = 0; i < 32; i++) b.submit(caller('A'), 50);
    b.step(); // let A's calls be measured
    b.submit(caller('B'), 50);
    b.step();
    // The slot freed after B arrived is B's, not the 30 A calls' queued before it.
    assert.equal(b.granted.at(-1), 'B');
    assert.equal(b.granted.filter((k) => k === 'B').length, 1);
  });

  it('shares the pool by time held, not by calls: a caller of short calls gets as much time', () => {
    const b = bench(1);
    for (let i = 0; i < 200; i++) b.submit(caller('long'), 100);
    for (let i = 0; i < 2000; i++) b.submit(caller('short'), 10);
    const held = { long: 0, short: 0 };
    for (let i = 0; i < 600; i++) {
      const before = b.at();
      const who = b.granted[i] as 'long' | 'short';
      b.step();
      held[who] += b.at() - before;
    }
    const ratio = held.long / held.short;
    assert.ok(ratio > 0.8 && ratio < 1.25, `pool time long:short = ${held.long}:${held.short}`);
  });

  it('shares by weight: a key of weight 3 gets three times the pool of a key of weight 1', () => {
    const b = bench(2);
    for (let i = 0; i < 400; i++) b.submit(caller('heavy', 3), 20);
    for (let i = 0; i < 400; i++) b.submit(caller('light', 1), 20);
    for (let i = 0; i < 400; i++) b.step();
    const first = b.granted.slice(40, 400);
    const heavy = first.filter((k) => k === 'heavy').length;
    const light = first.filter((k) => k === 'light').length;
    assert.ok(Math.abs(heavy / light - 3) < 0.3, `grants heavy:light = ${heavy}:${light}`);
  });

  it('keeps first come, first served within a caller', () => {
    const b = bench(1);
    b.submit(caller('A'), 10, 'A0');
    for (let i = 1; i <= 5; i++) b.submit(caller('A'), 10, `A${i}`);
    for (let i = 0; i < 5; i++) b.step();
    assert.deepEqual(b.granted, ['A0', 'A1', 'A2', 'A3', 'A4', 'A5']);
  });

  it('banks no credit while idle: a caller back after a long pause does not take every slot', () => {
    const b = bench(1);
    b.submit(caller('B'), 10, 'B');
    b.step();
    for (let i = 0; i < 100; i++) b.submit(caller('A'), 10, 'A');
    for (let i = 0; i < 50; i++) b.step();
    for (let i = 0; i < 10; i++) b.submit(caller('B'), 10, 'B');
    for (let i = 0; i < 10; i++) b.step();
    // B, back after A used the pool alone for 500 ms, alternates with A instead of running 10 in a row.
    const tail = b.granted.slice(-10);
    assert.ok(tail.filter((k) => k === 'B').length <= 6, tail.join(','));
    assert.ok(tail.filter((k) => k === 'B').length >= 4, tail.join(','));
  });

  it('with fairness off, grants strictly in arrival order whoever calls', () => {
    const b = bench(1, false);
    b.submit(caller('A'), 10, 'A0');
    for (let i = 1; i <= 4; i++) b.submit(caller('A'), 10, `A${i}`);
    b.submit(caller('B'), 10, 'B0');
    for (let i = 0; i < 5; i++) b.step();
    assert.deepEqual(b.granted, ['A0', 'A1', 'A2', 'A3', 'A4', 'B0']);
    // Callers are still counted, for stats and limits.
    assert.deepEqual(
      b.admission.holdings().map(({ key, running }) => [key, running]),
      [['B', 1]],
    );
  });

  it("keeps a tool's own concurrency: a caller whose tool is full does not block another tool", () => {
    let now = 0;
    const admission = new Admission({ threads: 4, maxQueue: 100, now: () => now });
    const one = tool('one', 1);
    const other = tool('other');
    const order: string[] = [];
    const releases: Release[] = [];
    const held = admission.tryAcquire(one, true, caller('A'))!;
    for (const [label, t, who] of [
      ['A-one', one, 'A'],
      ['B-one', one, 'B'],
      ['A-other', other, 'A'],
    ] as const) {
      const free = admission.tryAcquire(t, true, caller(who));
      if (free) {
        order.push(label);
        releases.push(free);
      } else {
        admission.enqueue(
          t,
          true,
          (release) => {
            order.push(label);
            releases.push(release);
          },
          caller(who),
        );
      }
    }
    assert.deepEqual(order, ['A-other']);
    now = 10;
    held();
    // B has held nothing yet: the one slot of `one` goes to B, although A's call queued first.
    assert.deepEqual(order, ['A-other', 'B-one']);
    assert.equal(admission.queued, 1);
  });

  it("refuses a caller's call past its own queued limit at once, naming the limit", () => {
    const admission = new Admission({ threads: 1, maxQueue: 100, perCallerQueued: 2 });
    const spin = tool('spin');
    admission.tryAcquire(spin, true, caller('A'));
    const queue = (who: string) => admission.enqueue(spin, true, () => {}, caller(who));
    assert.ok(!(queue('A') instanceof OverloadedError));
    assert.ok(!(queue('A') instanceof OverloadedError));
    const refused = queue('A');
    assert.ok(refused instanceof OverloadedError);
    assert.equal(refused.limit?.limit, 'queued');
    assert.equal(refused.limit?.scope, 'server');
    assert.equal(refused.limit?.max, 2);
    assert.ok(refused.limit!.retryAfterMs >= 1);
    assert.match(refused.message, /limits\.perCaller\.queued/);
    // Another caller still queues.
    assert.ok(!(queue('B') instanceof OverloadedError));
  });

  it("refuses past a tool's own per-caller queued limit, counted per tool", () => {
    const admission = new Admission({ threads: 1, maxQueue: 100 });
    const limited = tool('limited', Number.POSITIVE_INFINITY, { perCaller: { queued: 1 } });
    const free = tool('free');
    admission.tryAcquire(free, true, caller('A'));
    assert.ok(!(admission.enqueue(limited, true, () => {}, caller('A')) instanceof OverloadedError));
    const refused = admission.enqueue(limited, true, () => {}, caller('A'));
    assert.ok(refused instanceof OverloadedError);
    assert.equal(refused.limit?.scope, 'tool');
    assert.match(refused.message, /tool "limited"'s limits\.perCaller\.queued/);
    assert.ok(!(admission.enqueue(free, true, () => {}, caller('A')) instanceof OverloadedError));
  });

  it('reports per key what it holds and waits for, and forgets idle keys', () => {
    const b = bench(1);
    b.submit(caller('A'), 10);
    b.submit(caller('A'), 10);
    b.submit(caller('B'), 10);
    const byKey = Object.fromEntries(b.admission.holdings().map((h) => [h.key, h]));
    assert.equal(byKey.A?.running, 1);
    assert.equal(byKey.A?.waiting, 1);
    assert.equal(byKey.B?.waiting, 1);
    b.step();
    b.step();
    b.step();
    assert.ok(b.admission.holdings().every((h) => h.running === 0 && h.waiting === 0));
  });
});
