/**
 * The `limits` option, server-wide (`new McpServer({ limits })`) and per tool (`server.tool({ limits })`):
 * what one caller (one fairness key) may hold and spend. Defined here, beside the tool definition
 * that carries it, and checked once, when the server is built or the tool registered.
 */

export interface PerCallerLimits {
  /** Calls of one caller running or waiting at once (a task counts while it runs). */
  callsInFlight?: number;
  /** Calls of one caller waiting for a slot at once (on this replica). */
  queued?: number;
  /** Calls one caller may start per minute (a rolling minute, not a clock minute). */
  callsPerMinute?: number;
  /** Pool time one caller's calls may hold per minute, in ms (charged as each call gives its slot back). */
  poolMsPerMinute?: number;
}

export interface LimitsOption {
  /** Limits that apply to each caller on its own. */
  perCaller?: PerCallerLimits;
}

const LIMIT_KEYS = new Set(['perCaller']);
const PER_CALLER_KEYS = new Set(['callsInFlight', 'queued', 'callsPerMinute', 'poolMsPerMinute']);

/** Throws, saying what to fix, when `limits` is not a well-formed limits option; `where` names it. */
export function checkLimits(limits: unknown, where: string): asserts limits is LimitsOption | undefined {
  if (limits === undefined) return;
  if (typeof limits !== 'object' || limits === null || Array.isArray(limits)) {
    throw new TypeError(`${where} must be an object such as { perCaller: { callsInFlight: 8 } }`);
  }
  for (const key of Object.keys(limits)) {
    if (!LIMIT_KEYS.has(key)) throw new TypeError(`${where}: unknown option "${key}". Known: perCaller`);
  }
  const perCaller = (limits as LimitsOption).perCaller;
  if (perCaller === undefined) return;
  if (typeof perCaller !== 'object' || perCaller === null || Array.isArray(perCaller)) {
    throw new TypeError(
      `${where}.perCaller must be an object such as { callsInFlight: 8, callsPerMinute: 600 }`,
    );
  }
  for (const [key, value] of Object.entries(perCaller)) {
    if (!PER_CALLER_KEYS.has(key)) {
      throw new TypeError(
        `${where}.perCaller: unknown limit "${key}". Known: ${[...PER_CALLER_KEYS].join(', ')}`,
      );
    }
    if (value === undefined) continue;
    const least = key === 'queued' ? 0 : 1;
    if (!(Number.isInteger(value) && value >= least)) {
      throw new TypeError(
        `${where}.perCaller.${key} must be a whole number of at least ${least}, got ${value}`,
      );
    }
  }
}
