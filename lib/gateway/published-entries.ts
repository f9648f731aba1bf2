/**
 * What one mount has published into one registry: each published name (or URI) with the JSON of
 * the descriptor it went out with. After a re-listing, only what changed is published again, what
 * the upstream no longer lists leaves, and unmounting removes the lot. Tools, prompts and
 * resources keep their listings in step with the upstream through this one bookkeeping.
 */
export class PublishedEntries {
  readonly #json = new Map<string, string>();
  readonly #remove: (key: string) => unknown;

  /** `remove` takes an entry out of the registry it was published in. */
  constructor(remove: (key: string) => unknown) {
    this.#remove = remove;
  }

  /**
   * Whether `key` must be published with this descriptor JSON: not when it already is; when it was
   * published otherwise, that earlier entry is removed first.
   */
  needsPublishing(key: string, json: string): boolean {
    const known = this.#json.get(key);
    if (known === json) return false;
    if (known !== undefined) {
      this.#remove(key);
      this.#json.delete(key);
    }
    return true;
  }

  /** Records that `key` was published with this descriptor JSON. */
  published(key: string, json: string): void {
    this.#json.set(key, json);
  }

  /** Removes every entry the latest listing did not name. */
  keepOnly(seen: ReadonlySet<string>): void {
    for (const key of [...this.#json.keys()]) {
      if (seen.has(key)) continue;
      this.#json.delete(key);
      this.#remove(key);
    }
  }

  /** Unmounting: every entry leaves its registry. */
  clear(): void {
    for (const key of this.#json.keys()) this.#remove(key);
    this.#json.clear();
  }
}
