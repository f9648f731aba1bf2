/**
 * A cache of token checks that already succeeded, keyed by a digest of the token (the raw token is
 * never a key: a heap dump should not hand out credentials), each entry good until its token
 * expires. Bounded: past `maxEntries` the oldest entry goes, so a flood of distinct tokens costs
 * verifications, never memory.
 */
import * as crypto from 'node:crypto';

/** Node's one-shot digest (20.12 and later): a third of createHash's cost on a token's few hundred bytes. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'base64url') => string })
  .hash;

/** The cache key of a token: its SHA-256, base64url. */
export function tokenDigest(token: string): string {
  return oneShot
    ? oneShot('sha256', token, 'base64url')
    : crypto.createHash('sha256').update(token).digest('base64url');
}

export class BoundedExpiryCache<T> {
  readonly #entries = new Map<string, { value: T; expiresAt: number }>();
  readonly #maxEntries: number;

  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries;
  }

  /** The value stored under `key` if it has not expired by `now` (epoch ms); expired ones are dropped. */
  get(key: string, now = Date.now()): T | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Keeps `value` until `expiresAt` (epoch ms); an entry already expired is not kept. */
  set(key: string, value: T, expiresAt: number, now = Date.now()): void {
    if (expiresAt <= now || this.#maxEntries === 0) return;
    this.#entries.delete(key);
    while (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
    this.#entries.set(key, { value, expiresAt });
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}
