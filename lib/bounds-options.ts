/**
 * The `bounds` option: how much one caller, and all callers together, can make the server keep in
 * tables that grow with callers (scheduler keys, listen streams, per connection and per caller). Each has a default that keeps a
 * flood within a known amount of memory (docs/security.md, "Bounds on what callers make the server
 * keep"); the option exists to set them lower (tests, small machines) or higher (large fleets).
 */

export interface BoundsOptions {
  /** A caller key with no call running or waiting is forgotten after this long, in ms (default 10,000). */
  callerIdleMs?: number;
  /** The most caller keys the scheduler remembers at once (default 4,096; keys with calls are kept). */
  maxCallerKeys?: number;
  /** `subscriptions/listen` streams open at once on one session or connection (default 64). */
  maxListensPerConnection?: number;
  /**
   * `subscriptions/listen` streams open at once for one caller (its principal, else its client's
   * address; default 1,000, a tenth of maxListens).
   */
  maxListensPerCaller?: number;
  /** `subscriptions/listen` streams open at once on the server (default 10,000). */
  maxListens?: number;
}

export const DEFAULT_MAX_LISTENS_PER_CONNECTION = 64;
export const DEFAULT_MAX_LISTENS_PER_CALLER = 1_000;
export const DEFAULT_MAX_LISTENS = 10_000;

const BOUND_KEYS = [
  'callerIdleMs',
  'maxCallerKeys',
  'maxListensPerConnection',
  'maxListensPerCaller',
  'maxListens',
] as const;

/** Refuses a malformed `bounds` option at construction, saying what to fix. */
export function checkBoundsOptions(bounds: unknown): asserts bounds is BoundsOptions | undefined {
  if (bounds === undefined) return;
  if (typeof bounds !== 'object' || bounds === null || Array.isArray(bounds)) {
    throw new TypeError('McpServer: bounds must be an object such as { maxListensPerConnection: 64 }');
  }
  for (const [key, value] of Object.entries(bounds)) {
    if (!(BOUND_KEYS as readonly string[]).includes(key)) {
      throw new TypeError(`McpServer: unknown bounds option "${key}". Known: ${BOUND_KEYS.join(', ')}`);
    }
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 1)) {
      throw new TypeError(`McpServer: bounds.${key} must be a whole number of at least 1, got ${value}`);
    }
  }
}
