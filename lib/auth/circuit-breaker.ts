/**
 * A circuit breaker for a dependency that can fail or ask to be left alone (an authorization
 * server's introspection endpoint). Closed, calls go through. It opens at once when the dependency
 * says it is overloaded (HTTP 429 or 503, honouring its Retry-After within bounds), or after
 * `failureThreshold` failures in a row (errors, timeouts, other refusals). Open, nothing is sent
 * until the cool-down ends; then one probe goes through (half-open): its success closes the
 * breaker, its failure opens it again for twice as long, up to `maxOpenMs`. Callers refused while
 * it is open are told how long to wait, so a client gets 503 with Retry-After, not a 500.
 */
export interface CircuitBreakerOptions {
  /** Failures in a row (not counting 429/503, which open at once) that open it (default 3). */
  failureThreshold?: number;
  /** The first cool-down (default 2 000 ms); each failed probe doubles it. */
  openMs?: number;
  /** The longest cool-down, also the cap on a Retry-After the dependency asks for (default 30 000 ms;
   * a Retry-After is honoured from 1 s up). */
  maxOpenMs?: number;
}

export class CircuitBreaker {
  readonly #threshold: number;
  readonly #baseMs: number;
  readonly #maxMs: number;
  #failures = 0;
  #openUntil = 0;
  #nextOpenMs: number;
  #probing = false;

  constructor(options: CircuitBreakerOptions = {}) {
    this.#threshold = Math.max(1, options.failureThreshold ?? 3);
    this.#baseMs = options.openMs ?? 2_000;
    this.#maxMs = options.maxOpenMs ?? 30_000;
    this.#nextOpenMs = this.#baseMs;
  }

  /**
   * Whether a call may go now: 0 when it may (and, once the cool-down is over, it is the probe), or
   * the ms to wait.
   */
  admit(now = Date.now()): number {
    if (this.#openUntil === 0) return 0;
    if (now < this.#openUntil) return this.#openUntil - now;
    if (this.#probing) return Math.min(this.#baseMs, this.#maxMs);
    this.#probing = true;
    return 0;
  }

  /** How long a caller should wait before trying again (0: closed, or its cool-down is over). */
  waitMs(now = Date.now()): number {
    if (this.#openUntil === 0) return 0;
    if (now < this.#openUntil) return this.#openUntil - now;
    return this.#probing ? this.#baseMs : 0;
  }

  succeeded(): void {
    this.#failures = 0;
    this.#openUntil = 0;
    this.#probing = false;
    this.#nextOpenMs = this.#baseMs;
  }

  /**
   * A failed call. `overloaded` (429/503) opens it at once, for `retryAfterMs` when the dependency
   * named one (bounded by maxOpenMs), else for the current cool-down.
   */
  failed(options: { overloaded?: boolean; retryAfterMs?: number } = {}, now = Date.now()): void {
    this.#failures++;
    const wasProbe = this.#probing;
    this.#probing = false;
    if (!options.overloaded && !wasProbe && this.#failures < this.#threshold) return;
    const asked = options.retryAfterMs;
    const openMs =
      asked !== undefined && Number.isFinite(asked) && asked > 0
        ? Math.min(Math.max(asked, 1000), this.#maxMs)
        : this.#nextOpenMs;
    this.#openUntil = now + openMs;
    this.#nextOpenMs = Math.min(this.#nextOpenMs * 2, this.#maxMs);
  }

  /** Open (or probing) right now. */
  isOpen(now = Date.now()): boolean {
    return this.#openUntil !== 0 && (now < this.#openUntil || this.#probing);
  }
}
