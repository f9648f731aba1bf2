/**
 * One piece of work per key at a time: callers that ask for a key already being worked on share
 * its promise. For token introspection this makes the same token presented 400 times at once one
 * request to the authorization server. The table holds only work in progress (an entry leaves when
 * its promise settles), so its size is bounded by what the caller admits at once.
 */
export class SingleFlight<T> {
  readonly #running = new Map<string, Promise<T>>();

  /** The running work for `key`, or `work()` started now and shared until it settles. */
  run(key: string, work: () => Promise<T>): Promise<T> {
    const running = this.#running.get(key);
    if (running !== undefined) return running;
    const started = work().finally(() => this.#running.delete(key));
    this.#running.set(key, started);
    return started;
  }

  get size(): number {
    return this.#running.size;
  }
}
