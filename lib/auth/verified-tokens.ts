/**
 * The tokens a resource server verified, by digest: whom each vouches for, for which audience, and
 * for how long that verdict holds. Each has two windows:
 * - fresh, until `freshUntil` (a JWT: its `exp`; an introspected token: `introspection.cacheTtlMs`,
 *   never past `exp`): the token is accepted without asking anyone, in the request's own turn;
 * - then stale, until `staleUntil` (an introspected token only: `introspection.staleWindowMs` more,
 *   never past `exp`): the token is checked again, and only when that check cannot be made (the
 *   endpoint is down or limits weft, the lane is full) is the earlier verdict used instead.
 * A stale entry is what "seen valid before" means to introspection's lanes.
 *
 * It also answers, for the transports re-checking a long-lived connection, when the rights a
 * principal was granted must be asked for again (`recheckAt`).
 */
import { BoundedExpiryCache } from './bounded-expiry-cache.js';
import type { Principal } from './principal.js';

export interface VerifiedToken {
  readonly principal: Principal;
  readonly audience: string;
  readonly freshUntil: number;
  readonly staleUntil: number;
}

/** While a principal is served stale, how often a connection holding it asks again. */
export const STALE_RECHECK_MS = 2_000;

export class VerifiedTokens {
  readonly #entries: BoundedExpiryCache<VerifiedToken>;
  /** The verdict behind each principal handed out (one principal per verification). */
  readonly #byPrincipal = new WeakMap<Principal, VerifiedToken>();

  constructor(maxEntries: number) {
    this.#entries = new BoundedExpiryCache(maxEntries);
  }

  /** The entry of `digest` for `audience` while fresh or stale; undefined once both windows ended. */
  get(digest: string, audience: string, now = Date.now()): VerifiedToken | undefined {
    const entry = this.#entries.get(digest, now);
    return entry !== undefined && entry.audience === audience ? entry : undefined;
  }

  remember(digest: string, entry: VerifiedToken, now = Date.now()): void {
    this.#entries.set(digest, entry, Math.max(entry.freshUntil, entry.staleUntil), now);
    this.#byPrincipal.set(entry.principal, entry);
  }

  /** A token found invalid since: its earlier verdict must not be used, not even stale. */
  forget(digest: string): void {
    this.#entries.delete(digest);
  }

  /**
   * When a connection holding `principal` must ask for its rights again: when its fresh window
   * ends, or, once it is stale, every STALE_RECHECK_MS until its stale window ends. Undefined for a
   * principal this store did not hand out.
   */
  recheckAt(principal: Principal, now = Date.now()): number | undefined {
    const entry = this.#byPrincipal.get(principal);
    if (entry === undefined) return undefined;
    if (entry.freshUntil > now) return entry.freshUntil;
    return Math.min(Math.max(entry.staleUntil, now), now + STALE_RECHECK_MS);
  }

  get size(): number {
    return this.#entries.size;
  }
}
