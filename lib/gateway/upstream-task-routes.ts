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

/**
 * How the task is reached: `modern` a modern caller's task on a modern upstream (forwarded as it
 * is), `bridged` a legacy caller's task on a modern upstream (legacy-task-bridge.ts), `legacy` a
 * legacy caller's task on a legacy upstream (forwarded as it is).
 */
export type TaskRouteKind = 'modern' | 'bridged' | 'legacy';

export interface TaskOwner {
  /** principalKey of the caller, or undefined for an anonymous one. */
  principal: string | undefined;
  /** The legacy session that created it (that era scopes tasks to a session too). */
  session?: string;
}

interface Route extends TaskOwner {
  kind: TaskRouteKind;
  expiresAt: number;
}

export class UpstreamTaskRoutes {
  /** taskId -> owner and expiry, in creation order (a Map keeps insertion order). */
  readonly #routes = new Map<string, Route>();

  add(taskId: string, owner: TaskOwner, kind: TaskRouteKind, ttlMs: unknown): void {
    const now = Date.now();
    const keep = typeof ttlMs === 'number' && ttlMs >= 0 ? ttlMs + GRACE_MS : NO_TTL_KEEP_MS;
    this.#routes.delete(taskId);
    this.#routes.set(taskId, { ...owner, kind, expiresAt: now + keep });
    for (const [id, route] of this.#routes) {
      if (this.#routes.size <= MAX_ROUTES && route.expiresAt > now) break;
      this.#routes.delete(id);
    }
  }

  /** How to reach `taskId` if it is an unexpired upstream task of this caller, else undefined. */
  find(taskId: string, caller: TaskOwner): TaskRouteKind | undefined {
    const route = this.#routes.get(taskId);
    if (!route) return undefined;
    if (route.expiresAt <= Date.now()) {
      this.#routes.delete(taskId);
      return undefined;
    }
    if (route.principal !== caller.principal) return undefined;
    if (route.session !== undefined && route.session !== caller.session) return undefined;
    return route.kind;
  }
}
