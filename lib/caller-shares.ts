/**
 * What each caller holds of one shared capacity (WebSocket connections, listen streams), oldest
 * first, so that a caller's share can be bounded and, when the capacity is full, a newcomer can be
 * served by taking the oldest holding of the caller that holds the most instead of being refused
 * while one caller sits on most of it. Callers are the keys of transports/caller-identity.ts.
 */
export class CallerShares<T> {
  /** Each caller's holdings, oldest first (a Set keeps insertion order). */
  readonly #byCaller = new Map<string, Set<T>>();
  readonly #callerOf = new Map<T, string>();

  /** Holdings in all. */
  get size(): number {
    return this.#callerOf.size;
  }

  /** Callers holding something now. */
  get callers(): number {
    return this.#byCaller.size;
  }

  countOf(caller: string): number {
    return this.#byCaller.get(caller)?.size ?? 0;
  }

  add(caller: string, item: T): void {
    let mine = this.#byCaller.get(caller);
    if (mine === undefined) {
      mine = new Set();
      this.#byCaller.set(caller, mine);
    }
    mine.add(item);
    this.#callerOf.set(item, caller);
  }

  remove(item: T): void {
    const caller = this.#callerOf.get(item);
    if (caller === undefined) return;
    this.#callerOf.delete(item);
    const mine = this.#byCaller.get(caller);
    mine?.delete(item);
    if (mine?.size === 0) this.#byCaller.delete(caller);
  }

  /**
   * The oldest holding of the caller holding the most, when that caller holds more than
   * `newcomer` would once served (so taking it is fair); undefined otherwise.
   */
  oldestOfBiggestHolder(newcomer: string): T | undefined {
    let biggest: Set<T> | undefined;
    for (const mine of this.#byCaller.values())
      if (biggest === undefined || mine.size > biggest.size) biggest = mine;
    if (biggest === undefined || biggest.size <= this.countOf(newcomer) + 1) return undefined;
    return biggest.values().next().value;
  }
}
