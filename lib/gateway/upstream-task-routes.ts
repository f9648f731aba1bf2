/**
 * Which tasks an upstream created for the gateway's callers, and for whom: the gateway forwards a
 * mounted tool's task instead of running one of its own, so it only has to know where a taskId
 * lives and whose it is. The upstream is one client to itself (the gateway), so the caller check
 * is the gateway's: a task is found only by the principal whose call created it.
 *
 * Kept in memory for the task's ttlMs (plus a minute, so the upstream says "expired" rather than
 * the gateway "unknown"); a task without a ttl is kept for a day. Bounded: past MAX_ROUTES the
 * oldest routes go first. A limit of the design: routes are per gateway process, so gateway
 * replicas behind one balancer must send a task's requests to the replica that created it.
 */

const MAX_ROUTES = 100_000;
const NO_TTL_KEEP_MS = 24 * 3_600_000;
const GRACE_MS = 60_000;

export class UpstreamTaskRoutes {
  /** taskId -> owner and expiry, in creation order (a Map keeps insertion order). */
  readonly #routes = new Map<string, { principal: string | undefined; expiresAt: number }>();

  add(taskId: string, principal: string | undefined, ttlMs: unknown): void {
    const now = Date.now();
    const keep = typeof ttlMs === 'number' && ttlMs >= 0 ? ttlMs + GRACE_MS : NO_TTL_KEEP_MS;
    this.#routes.delete(taskId);
    this.#routes.set(taskId, { principal, expiresAt: now + keep });
    for (const [id, route] of this.#routes) {
      if (this.#routes.size <= MAX_ROUTES && route.expiresAt > now) break;
      this.#routes.delete(id);
    }
  }

  /** Whether `taskId` is an upstream task of `principal` that has not expired. */
  owns(taskId: string, principal: string | undefined): boolean {
    const route = this.#routes.get(taskId);
    if (!route) return false;
    if (route.expiresAt <= Date.now()) {
      this.#routes.delete(taskId);
      return false;
    }
    return route.principal === principal;
  }
}
