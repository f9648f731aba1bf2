/**
 * What the per-caller limits count, and where: this process (LocalCallerCounts), or a Redis every
 * replica shares (shared-caller-counts.ts). Both keep the same three counts per (caller, scope):
 *
 * - calls in flight: a plain count, up on entry and down on leave;
 * - calls per minute: the generic cell rate algorithm (GCRA), one "theoretical arrival time" per
 *   key. Each call moves it on by 60,000 / limit ms; a call is refused when that would take it more
 *   than a minute ahead of now. That is a rolling minute with a burst of `limit`, in one number;
 * - pool time per minute: the same with each call's pool time as its cost (ms x 60,000 / limit),
 *   charged when the call gives its slot back; a call is refused while the key is a minute ahead.
 *
 * An entry is all or nothing: every check passes and then every count moves, or nothing does.
 *
 * The tables here grow with callers, so they are bounded: an in-flight count goes when it falls to
 * zero; a rate counter goes once its time has passed (it holds no debt then), swept every 1,024
 * writes or every minute, and past `maxCounters` the oldest-written counters are dropped (their
 * debt forgiven: the price of a bound when more callers than that are spending at once).
 */

export type CountKind = 'callsInFlight' | 'callsPerMinute' | 'poolMsPerMinute';

export interface CountCheck {
  readonly kind: CountKind;
  /** Where the limit comes from: the server's `limits`, or the tool's. */
  readonly scope: 'server' | 'tool';
  /** The counter's name for this caller: scope and key, unique per limit. */
  readonly counter: string;
  readonly max: number;
}

/** How an entry went: passed (leave when the call ends), or refused by `checks[index]`. */
export type EntryResult =
  | { readonly passed: true; leave(): void }
  | { readonly passed: false; readonly index: number; readonly retryAfterMs: number | undefined };

export interface CallerCounts {
  enter(checks: readonly CountCheck[]): EntryResult | Promise<EntryResult>;
  /** Charges `ms` of pool time to each poolMsPerMinute check. */
  charge(checks: readonly CountCheck[], ms: number): void;
}

const MINUTE_MS = 60_000;
/** The most rate counters kept at once in this process (the default of `maxCounters`). */
export const DEFAULT_MAX_COUNTERS = 65_536;

export class LocalCallerCounts implements CallerCounts {
  readonly #inFlight = new Map<string, number>();
  /** Theoretical arrival times (ms, on `now`) of the rate counters. */
  readonly #arrival = new Map<string, number>();
  readonly #now: () => number;
  readonly #maxCounters: number;
  #writes = 0;
  #sweptAt: number;

  constructor(now: () => number = Date.now, maxCounters = DEFAULT_MAX_COUNTERS) {
    this.#now = now;
    this.#maxCounters = maxCounters;
    this.#sweptAt = now();
  }

  /** How many counters are kept now (in-flight counts and rate counters), for `server.stats`. */
  get size(): number {
    return this.#inFlight.size + this.#arrival.size;
  }

  enter(checks: readonly CountCheck[]): EntryResult {
    const now = this.#now();
    const next: number[] = [];
    for (const [index, check] of checks.entries()) {
      if (check.kind === 'callsInFlight') {
        if ((this.#inFlight.get(check.counter) ?? 0) >= check.max) {
          return { passed: false, index, retryAfterMs: undefined };
        }
        continue;
      }
      const arrival = Math.max(this.#arrival.get(check.counter) ?? 0, now);
      if (check.kind === 'callsPerMinute') {
        const moved = arrival + MINUTE_MS / check.max;
        if (moved - now > MINUTE_MS) return { passed: false, index, retryAfterMs: moved - now - MINUTE_MS };
        next[index] = moved;
      } else if (arrival - now >= MINUTE_MS) {
        return { passed: false, index, retryAfterMs: arrival - now - MINUTE_MS + 1 };
      }
    }
    for (const [index, check] of checks.entries()) {
      if (check.kind === 'callsInFlight') {
        this.#inFlight.set(check.counter, (this.#inFlight.get(check.counter) ?? 0) + 1);
      } else if (check.kind === 'callsPerMinute') {
        this.#setArrival(check.counter, next[index]!, now);
      }
    }
    let left = false;
    return {
      passed: true,
      leave: () => {
        if (left) return;
        left = true;
        for (const check of checks) {
          if (check.kind !== 'callsInFlight') continue;
          const count = (this.#inFlight.get(check.counter) ?? 1) - 1;
          if (count <= 0) this.#inFlight.delete(check.counter);
          else this.#inFlight.set(check.counter, count);
        }
      },
    };
  }

  charge(checks: readonly CountCheck[], ms: number): void {
    const now = this.#now();
    for (const check of checks) {
      if (check.kind !== 'poolMsPerMinute') continue;
      const arrival = Math.max(this.#arrival.get(check.counter) ?? 0, now);
      this.#setArrival(check.counter, arrival + (ms * MINUTE_MS) / check.max, now);
    }
  }

  /** Calls in flight now under `counter`, for tests and stats. */
  inFlight(counter: string): number {
    return this.#inFlight.get(counter) ?? 0;
  }

  /** Sets a rate counter; now and then drops the counters whose time has passed (they hold no debt). */
  #setArrival(counter: string, arrival: number, now: number): void {
    // Deleted first, so the Map's order is the order of last writes (the oldest first).
    this.#arrival.delete(counter);
    this.#arrival.set(counter, arrival);
    if (this.#arrival.size > this.#maxCounters) this.#arrival.delete(this.#arrival.keys().next().value!);
    if (++this.#writes % 1024 !== 0 && now - this.#sweptAt < MINUTE_MS) return;
    this.#sweptAt = now;
    for (const [name, at] of this.#arrival) if (at <= now) this.#arrival.delete(name);
  }
}
