/**
 * Which caller a tool call is for: the key fair admission shares the pool by and the per-caller
 * limits count by. The router chooses it, because only the router knows who is calling (the
 * principal on the request's scope, the session); the engine is handed an opaque string and a
 * weight and never learns what they stand for.
 *
 * By default: the caller identity the transport worked out at its door (the request scope's
 * `caller`, transports/caller-identity.ts): the principal when auth vouched for one, else the
 * client's address (an IPv4 address, an IPv6 /64), so two anonymous clients on two hosts get two
 * shares whichever era or transport they use, and one host's many requests share one. A transport
 * that knows neither (stdio, in-process) makes each connection a caller of its own. The server's
 * `fairness.key` may choose another (a tenant named in a token claim or in `_meta`);
 * `fairness.weight` gives a key a larger or smaller share (default 1).
 */
import { type Principal, principalKey } from '../auth/principal.js';
import type { Caller } from '../engine/fair-queue.js';
import type { Era } from '../protocol/eras.js';
import type { RegisteredTool } from '../tools/registered-tool.js';
import type { MethodContext } from './method-table.js';

/** What `fairness.key` sees of a call. */
export interface FairnessRequest {
  /** Who is calling, as the transport's auth vouched (undefined without auth). */
  readonly principal: Principal | undefined;
  /**
   * The default caller key (`principal ["issuer","subject"]`, `address 192.0.2.7`,
   * `address 2001:db8:0:1::/64` or `connection 3`): what the call is counted against unless `key`
   * says otherwise. Behind a proxy listed in `trustProxy` the address is the client's.
   */
  readonly caller: string | undefined;
  /** The legacy session's id (undefined for stdio, WebSocket and modern HTTP requests). */
  readonly sessionId: string | undefined;
  readonly era: Era;
  /** The tool called. */
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
  /** The request's `params._meta`, if any. */
  readonly meta: Record<string, unknown> | undefined;
}

export interface FairnessOptions {
  /**
   * The caller's key for a call; undefined (or an empty string) falls back to the default
   * (`request.caller`: principal, else client address). Calls with the same key share one fair share.
   */
  key?: (request: FairnessRequest) => string | undefined;
  /** A key's weight: its share of the pool relative to other busy keys (default 1; must be > 0). */
  weight?: (key: string) => number;
}

const FAIRNESS_KEYS = new Set(['key', 'weight']);

/** Refuses a malformed `fairness` option at construction, saying what to fix. */
export function checkFairnessOptions(fairness: unknown): void {
  if (fairness === undefined || fairness === false || fairness === true) return;
  if (typeof fairness !== 'object' || fairness === null || Array.isArray(fairness)) {
    throw new TypeError(
      'McpServer: fairness must be false (first come, first served) or an object such as { key(request) { ... }, weight(key) { ... } }',
    );
  }
  for (const [name, value] of Object.entries(fairness)) {
    if (!FAIRNESS_KEYS.has(name)) {
      throw new TypeError(`McpServer: unknown fairness option "${name}". Known: key, weight`);
    }
    if (value !== undefined && typeof value !== 'function') {
      throw new TypeError(`McpServer: fairness.${name} must be a function, got ${typeof value}`);
    }
  }
}

export class CallerKeys {
  readonly #options: FairnessOptions;

  constructor(options: FairnessOptions = {}) {
    this.#options = options;
  }

  /** The caller of a call of `tool` with `args`, made in the request `ctx`. */
  callerOf(ctx: MethodContext, tool: RegisteredTool, args: Record<string, unknown>): Caller {
    const chosen = this.#options.key?.({
      principal: ctx.scope.principal,
      caller: ctx.scope.caller ?? ctx.session.caller,
      sessionId: ctx.session.id,
      era: ctx.scope.era,
      tool: tool.name,
      arguments: args,
      meta: ctx.params._meta as Record<string, unknown> | undefined,
    });
    const key = typeof chosen === 'string' && chosen !== '' ? `key:${chosen}` : this.#defaultKey(ctx);
    const weight = this.#options.weight?.(key.slice(key.indexOf(':') + 1)) ?? 1;
    // A weight that is no positive number cannot be a share: such a key gets the default.
    return { key, weight: Number.isFinite(weight) && weight > 0 ? weight : 1 };
  }

  #defaultKey({ scope, session }: MethodContext): string {
    // Every session gets a caller when it opens (server-sessions.ts); the principal is the fallback.
    const caller = scope.caller ?? session.caller;
    if (caller !== undefined) return `caller:${caller}`;
    return scope.principal ? `principal:${principalKey(scope.principal)}` : 'caller:unknown';
  }
}
