/**
 * How many introspections of tokens never seen valid one source may start: a token bucket per
 * source (`burst` at once, refilled at `perSecond`). An authorization server limits weft as a whole
 * (429 with a Retry-After that shuts every caller out), so one address sending made-up tokens as
 * fast as it can must not be the one who spends weft's allowance there: past its budget, its
 * unknown tokens are refused at once, without a request, while every other source keeps its own.
 *
 * Bounded: a source whose bucket has refilled is the same as one never seen, so it is forgotten;
 * at most `maxSources` are remembered, and past that the oldest goes (it gets a full bucket again,
 * which is what a new source gets anyway).
 */

interface Bucket {
  tokens: number;
  at: number;
}

export class SourceBudget {
  readonly #burst: number;
  readonly #perMs: number;
  readonly #maxSources: number;
  readonly #buckets = new Map<string, Bucket>();

  constructor(burst: number, perSecond: number, maxSources = 10_000) {
    this.#burst = Math.max(1, burst);
    this.#perMs = Math.max(0, perSecond) / 1000;
    this.#maxSources = maxSources;
  }

  /** 0 when `source` may start one more (and it is counted), else the ms until it may. */
  take(source: string, now = Date.now()): number {
    const bucket = this.#buckets.get(source);
    let tokens = this.#burst;
    if (bucket !== undefined) tokens = Math.min(this.#burst, bucket.tokens + (now - bucket.at) * this.#perMs);
    if (tokens < 1) {
      return this.#perMs > 0 ? Math.ceil((1 - tokens) / this.#perMs) : Number.POSITIVE_INFINITY;
    }
    this.#buckets.delete(source);
    this.#forgetRefilled(now);
    this.#buckets.set(source, { tokens: tokens - 1, at: now });
    return 0;
  }

  /** Sources remembered (those that spent part of their budget lately). */
  get size(): number {
    return this.#buckets.size;
  }

  /**
   * Drops the buckets, least recently used first, that have refilled (the map is in order of last
   * use, so they are at its front), and the oldest ones beyond maxSources.
   */
  #forgetRefilled(now: number): void {
    for (const [source, bucket] of this.#buckets) {
      const refilled = bucket.tokens + (now - bucket.at) * this.#perMs >= this.#burst;
      if (!refilled && this.#buckets.size < this.#maxSources) return;
      this.#buckets.delete(source);
    }
  }
}
