/**
 * Fair admission as a property (fast-check), on a simulated pool with a fake clock: whatever the
 * callers, weights, call lengths and arrival times,
 * - no caller starves: every call is granted, and a waiting caller is served within a bounded
 *   number of other callers' grants;
 * - while every caller keeps calls waiting, the pool time each one holds converges to its share of
 *   the weights.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Admission, OverloadedError, type Release } from '../../lib/engine/admission.js';
import type { Caller } from '../../lib/engine/fair-queue.js';
import type { RegisteredTool } from '../../lib/tools/registered-tool.js';

const SPIN = { name: 'spin', concurrency: Number.POSITIVE_INFINITY } as unknown as RegisteredTool;

interface Profile {
  weight: number;
  /** Calls of this caller hold their slot between minMs and 2 x minMs. */
  minMs: number;
}

/** A discrete-event pool: calls end in time order, each end releases its slot (granting the next). */
class SimulatedPool {
  now = 0;
  readonly admission: Admission;
  readonly held = new Map<string, number>();
  readonly #running: { endsAt: number; release: Release; key: string; ms: number }[] = [];
  /** Grants, in order, by key. */
  readonly grants: string[] = [];

  constructor(threads: number) {
    this.admission = new Admission({ threads, maxQueue: 1_000_000, now: () => this.now });
  }

  submit(caller: Caller, ms: number, onGranted?: () => void): void {
    const start = (release: Release) => {
      this.grants.push(caller.key);
      this.#running.push({ endsAt: this.now + ms, release, key: caller.key, ms });
      onGranted?.();
    };
    const free = this.admission.tryAcquire(SPIN, true, caller);
    if (free) start(free);
    else assert.ok(!(this.admission.enqueue(SPIN, true, start, caller) instanceof OverloadedError));
  }

  get busy(): boolean {
    return this.#running.length > 0;
  }

  /** Ends the next call; returns its key. */
  endNext(): string {
    let first = 0;
    for (let i = 1; i < this.#running.length; i++) {
      if (this.#running[i]!.endsAt < this.#running[first]!.endsAt) first = i;
    }
    const [call] = this.#running.splice(first, 1);
    this.now = call!.endsAt;
    this.held.set(call!.key, (this.held.get(call!.key) ?? 0) + call!.ms);
    call!.release();
    return call!.key;
  }
}

const profiles = fc.array(
  fc.record({ weight: fc.integer({ min: 1, max: 4 }), minMs: fc.integer({ min: 1, max: 40 }) }),
  { minLength: 2, maxLength: 5 },
);

/** Deterministic call lengths from a seed (the property's own randomness stays in fast-check). */
function lengths(seed: number) {
  let state = seed >>> 0 || 1;
  return (profile: Profile) => {
    state = (state * 1_103_515_245 + 12_345) >>> 0;
    return profile.minMs + (state % (profile.minMs + 1));
  };
}

describe('Fair admission, as a property', () => {
  it('shares converge to the weights while every caller keeps calls waiting', () => {
    fc.assert(
      fc.property(profiles, fc.integer({ min: 1, max: 4 }), fc.integer(), (callers, threads, seed) => {
        const pool = new SimulatedPool(threads);
        const lengthOf = lengths(seed);
        const keys = callers.map((profile, index) => ({ key: `k${index}`, weight: profile.weight }));
        // Each caller keeps threads + 2 calls in flight: it always has one waiting.
        const refill = (index: number) => pool.submit(keys[index]!, lengthOf(callers[index]!));
        for (const index of keys.keys()) for (let i = 0; i < threads + 2; i++) refill(index);
        const byKey = new Map(keys.map((k, index) => [k.key, index]));
        const longest = Math.max(...callers.map((p) => p.minMs * 2));
        // Long enough that every caller held the pool many times over its longest call.
        const until = 400 * longest * keys.length;
        while (pool.now < until) refill(byKey.get(pool.endNext())!);
        const total = [...pool.held.values()].reduce((a, b) => a + b, 0);
        const weights = keys.reduce((sum, k) => sum + k.weight, 0);
        for (const k of keys) {
          const share = (pool.held.get(k.key) ?? 0) / total;
          const expected = k.weight / weights;
          assert.ok(
            Math.abs(share - expected) <= 0.15 * expected + 0.01,
            `${k.key} (weight ${k.weight}) held ${(share * 100).toFixed(1)}% of the pool, expected ${(expected * 100).toFixed(1)}%`,
          );
        }
      }),
      { numRuns: 40 },
    );
  });

  it('starves no caller under random arrivals: every call is granted, each in bounded turns', () => {
    const arrival = fc.record({
      at: fc.integer({ min: 0, max: 2_000 }),
      caller: fc.nat(),
      count: fc.integer({ min: 1, max: 30 }),
    });
    fc.assert(
      fc.property(
        profiles,
        fc.array(arrival, { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer(),
        (callers, arrivals, threads, seed) => {
          const pool = new SimulatedPool(threads);
          const lengthOf = lengths(seed);
          const keys = callers.map((profile, index) => ({ key: `k${index}`, weight: profile.weight }));
          const ratio = Math.max(...callers.map((p) => p.weight)) / Math.min(...callers.map((p) => p.weight));
          const spread =
            Math.max(...callers.map((p) => 2 * p.minMs)) / Math.min(...callers.map((p) => p.minMs));
          // However long the others' queues, a waiting caller is granted a slot after at most this
          // many grants to other callers (SFQ: each other caller's weighted share of one call of
          // its own, with slack for the estimate of pool time learning call lengths).
          const bound = keys.length * Math.ceil(ratio * spread) * 4 + threads + 8;
          /** Calls each caller has waiting, and the grants to others since its last grant. */
          const waiting = keys.map(() => 0);
          const othersSince = keys.map(() => 0);
          let worst = 0;
          let submitted = 0;
          let granted = 0;
          const pending = [...arrivals].sort((a, b) => a.at - b.at);
          const submitDue = () => {
            while (pending.length > 0 && (pending[0]!.at <= pool.now || !pool.busy)) {
              const next = pending.shift()!;
              pool.now = Math.max(pool.now, next.at);
              const index = next.caller % keys.length;
              for (let i = 0; i < next.count; i++) {
                submitted++;
                if (waiting[index] === 0) othersSince[index] = 0;
                waiting[index]!++;
                pool.submit(keys[index]!, lengthOf(callers[index]!), () => {
                  granted++;
                  waiting[index]!--;
                  othersSince[index] = 0;
                  for (const other of keys.keys()) {
                    if (other === index || waiting[other] === 0) continue;
                    othersSince[other]!++;
                    worst = Math.max(worst, othersSince[other]!);
                  }
                });
              }
            }
          };
          submitDue();
          while (pool.busy || pending.length > 0) {
            if (pool.busy) pool.endNext();
            submitDue();
          }
          assert.equal(granted, submitted, 'every call was granted');
          assert.ok(
            worst <= bound,
            `a waiting caller saw ${worst} grants to others in a row (bound ${bound})`,
          );
        },
      ),
      { numRuns: 60 },
    );
  });
});
