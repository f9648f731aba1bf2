/**
 * Built-in middleware: answers a repeated list or resources/read from memory while its cache hint
 * says it is fresh.
 *
 * It honours the hints the server gives clients (the `cache` option: `ttlMs`, `cacheScope`): a
 * result is kept for `ttlMs` (0, the default, keeps nothing), and a `private` result is kept per
 * caller (issuer + subject of the principal), so one user's answer is never served to another;
 * callers without a principal (a server without auth) share one entry. A `public` one is shared.
 * The key is the method, the era and version, the params without `_meta`, and the client's
 * declared capabilities (a listing may depend on them). Never cached: errors,
 * `input_required` answers and retries carrying `inputResponses` / `requestState`, and tasks.
 *
 * Bounded: at most `maxEntries` results (the oldest go first), and expired ones are dropped as
 * new ones are stored, not only when asked for again.
 *
 * Within `ttlMs` a cached listing does not see a tool added or removed meanwhile, as a client
 * honouring the same hint would not: give lists a short `ttlMs` on a server whose lists change.
 */
import { principalKey } from '../auth/principal.js';
import type { MiddlewareContext, MiddlewareHook, MiddlewareHooks } from '../router/middleware-chain.js';
import { InputRequiredAnswer } from '../router/mrtr-rounds.js';
import { CreatedTaskAnswer } from '../router/task-wire.js';

export interface ResponseCacheOptions {
  /** The most results kept at once (default 1000); the oldest go first. */
  maxEntries?: number;
  /** The clock, in milliseconds (tests pass their own). */
  now?: () => number;
}

interface Entry {
  value: unknown;
  expiresAt: number;
}

const KNOWN = ['maxEntries', 'now'];

export function responseCache(options: ResponseCacheOptions = {}): MiddlewareHooks {
  for (const key of Object.keys(options)) {
    if (!KNOWN.includes(key))
      throw new TypeError(`responseCache: unknown option "${key}". Known: ${KNOWN.join(', ')}`);
  }
  const maxEntries = options.maxEntries ?? 1000;
  if (!(Number.isSafeInteger(maxEntries) && maxEntries > 0)) {
    throw new TypeError(`responseCache: maxEntries must be a whole number > 0, got ${maxEntries}`);
  }
  const now = options.now ?? Date.now;
  // A Map iterates in insertion order: its first key is the oldest entry.
  const entries = new Map<string, Entry>();

  const cached: MiddlewareHook = async (ctx, next) => {
    const key = cacheKey(ctx);
    if (key === undefined) return next();
    const found = entries.get(key);
    const at = now();
    if (found !== undefined) {
      if (found.expiresAt > at) return found.value;
      entries.delete(key);
    }
    const value = await next();
    if (!cacheable(value)) return value;
    const stored = now();
    entries.delete(key);
    entries.set(key, { value, expiresAt: stored + (ctx.cacheHint?.ttlMs ?? 0) });
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    // Expired entries go too, not only when asked for again: a few of the oldest per store keeps
    // a cache of many one-off keys (one per caller) from holding them until the cap pushes them out.
    let looked = 0;
    for (const [old, entry] of entries) {
      if (++looked > 4 || entry.expiresAt > stored) break;
      entries.delete(old);
    }
    return value;
  };
  return { onList: cached, onReadResource: cached };
}

/** The key a result is kept under, or undefined when this request's result is not to be kept. */
function cacheKey(ctx: MiddlewareContext): string | undefined {
  const hint = ctx.cacheHint;
  if (hint === undefined || hint.ttlMs <= 0) return undefined;
  const { _meta, ...params } = ctx.params;
  if ('inputResponses' in params || 'requestState' in params) return undefined;
  const caller =
    hint.cacheScope === 'public'
      ? 'public'
      : ctx.principal === undefined
        ? 'anonymous'
        : principalKey(ctx.principal);
  return JSON.stringify([ctx.method, ctx.era, ctx.version, caller, params, ctx.clientCapabilities]);
}

function cacheable(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    !(value instanceof InputRequiredAnswer) &&
    !(value instanceof CreatedTaskAnswer)
  );
}
