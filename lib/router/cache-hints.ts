/**
 * The cache hints (`ttlMs`, `cacheScope`) the 2026-07-28 era requires on its six cacheable results,
 * configured once per server and resolved once per method, so every page of a listing carries the
 * same scope.
 *
 * The defaults are the cautious ones: `ttlMs: 0` (a client may keep a listing but should re-fetch
 * before relying on it), because weft's registries change at run time (`ctx.tools().add`,
 * `server.removeTool`) and a cached list would hide that from clients that do not listen for
 * list_changed; and `cacheScope: 'private'`, because a server behind an auth hook may answer
 * differently per token, and a shared cache must never serve one user's answer to another.
 */
import { type CacheableMethod, type CacheScope, MODERN_METHODS } from '../protocol/eras.js';

export interface CacheHint {
  /** How long (ms, an integer >= 0) a client may use the result before fetching it again. */
  ttlMs?: number;
  /** `'public'`: any cache may share the result; `'private'`: only within one authorization context. */
  scope?: CacheScope;
}

export interface CacheOptions extends CacheHint {
  /** Per-method overrides, e.g. `{ 'tools/list': { ttlMs: 60_000, scope: 'public' } }`. */
  methods?: Partial<Record<CacheableMethod, CacheHint>>;
}

export const DEFAULT_CACHE_HINT = { ttlMs: 0, scope: 'private' } as const satisfies Required<CacheHint>;

export const CACHEABLE_METHODS = [...MODERN_METHODS]
  .filter(([, rule]) => rule.cacheable)
  .map(([method]) => method as CacheableMethod);

/** The `{ ttlMs, cacheScope }` fields a method's results carry, most specific option first. */
export function resolveCacheHint(
  options: CacheOptions | undefined,
  method: CacheableMethod,
): { ttlMs: number; cacheScope: CacheScope } {
  const own = options?.methods?.[method];
  return {
    ttlMs: own?.ttlMs ?? options?.ttlMs ?? DEFAULT_CACHE_HINT.ttlMs,
    cacheScope: own?.scope ?? options?.scope ?? DEFAULT_CACHE_HINT.scope,
  };
}

/** Refuses a malformed `cache` option when the server is built, saying what to write instead. */
export function checkCacheOptions(options: unknown): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError("McpServer: cache must be an object such as { ttlMs: 60000, scope: 'public' }");
  }
  const { methods, ...defaults } = options as CacheOptions;
  checkHint(defaults, 'cache', ['ttlMs', 'scope', 'methods']);
  if (methods === undefined) return;
  if (typeof methods !== 'object' || methods === null) {
    throw new TypeError(
      "McpServer: cache.methods must be an object keyed by method, e.g. { 'tools/list': { ttlMs: 60000 } }",
    );
  }
  for (const [method, hint] of Object.entries(methods)) {
    if (!(CACHEABLE_METHODS as readonly string[]).includes(method)) {
      throw new TypeError(
        `McpServer: cache.methods["${method}"]: only these results carry cache hints: ${CACHEABLE_METHODS.join(', ')}`,
      );
    }
    checkHint(hint, `cache.methods["${method}"]`, ['ttlMs', 'scope']);
  }
}

function checkHint(hint: unknown, where: string, keys: string[]): void {
  if (typeof hint !== 'object' || hint === null) throw new TypeError(`McpServer: ${where} must be an object`);
  for (const key of Object.keys(hint)) {
    if (!keys.includes(key)) {
      throw new TypeError(`McpServer: ${where} has an unknown option "${key}". Known: ${keys.join(', ')}`);
    }
  }
  const { ttlMs, scope } = hint as CacheHint;
  if (ttlMs !== undefined && !(Number.isSafeInteger(ttlMs) && ttlMs >= 0)) {
    throw new TypeError(
      `McpServer: ${where}.ttlMs must be a whole number of milliseconds >= 0, got ${ttlMs}`,
    );
  }
  if (scope !== undefined && scope !== 'public' && scope !== 'private') {
    throw new TypeError(
      `McpServer: ${where}.scope must be 'public' or 'private', got ${JSON.stringify(scope)}`,
    );
  }
}
