/**
 * What `new McpServer(options)` and `server.listen(options)` accept, and the check that refuses a
 * mistyped or out-of-range option when the server is built, with a message that says what to fix.
 */

import type { Principal } from './auth/principal.js';
import { readScopes } from './auth/scopes.js';
import { type BoundsOptions, checkBoundsOptions } from './bounds-options.js';
import { checkFleetOptions, type FleetOptions } from './engine/fleet-options.js';
import { type CacheOptions, checkCacheOptions } from './router/cache-hints.js';
import { checkFairnessOptions, type FairnessOptions } from './router/caller-keys.js';
import { checkTags } from './tag-filter.js';
import { RedisTaskStore, redisOfTaskStore } from './tasks/redis-task-store.js';
import type { TaskStore } from './tasks/task-store.js';
import { checkLimits, type LimitsOption } from './tools/per-caller-limits.js';
import { checkTrustProxy } from './transports/caller-identity.js';
import type { HttpListenOptions } from './transports/streamable-http.js';
import type { WebSocketListenOptions } from './transports/websocket.js';

export interface McpServerOptions {
  name: string;
  version: string;
  title?: string;
  /** Sent at initialize and in server/discover: how a model should use this server. */
  instructions?: string;
  /**
   * Cache hints (`ttlMs`, `cacheScope`) on the 2026-07-28 era's cacheable results: server/discover,
   * tools/list, prompts/list, resources/list, resources/templates/list, resources/read. Default
   * `{ ttlMs: 0, scope: 'private' }`; per method with `methods: { 'tools/list': { ttlMs: 60_000 } }`.
   */
  cache?: CacheOptions;
  /** The server-wide deadline of every call in ms; tools may tighten it. 0 or absent = none. */
  timeoutMs?: number;
  /**
   * With it, only tools, prompts and resources carrying one of these tags are exposed (listed,
   * callable, readable); untagged ones are hidden too. Absent: everything not disabled is exposed.
   */
  enabledTags?: readonly string[];
  /** Tools, prompts and resources carrying any of these tags are hidden (wins over `enabledTags`). */
  disabledTags?: readonly string[];
  /** Tools per `tools/list` page (default 100). */
  pageSize?: number;
  pool?: {
    /** Worker threads for blocking tools (default: available parallelism). */
    maxThreads?: number;
    /** Calls that may wait for a slot before new ones are refused as overloaded (default 256). */
    maxQueue?: number;
    /** Time a cooperative blocking handler gets to stop before its thread is terminated (default 200). */
    graceMs?: number;
    /**
     * Lowers the CPU priority of pool threads by this nice increment (default 10; 0 to disable) so
     * the main thread keeps answering while every worker is busy. Linux and macOS.
     */
    niceIncrement?: number;
    /**
     * How long every pool slot may stay lost (held by a stopped call still inside native code:
     * docs/failure-semantics.md) before liveness (`/healthz`) fails, so that an orchestrator
     * replaces the replica. Default 60000 ms; 0: liveness never fails for it.
     */
    lostSlotsLivenessMs?: number;
  };
  /** On shutdown, how long in-flight calls get to finish before they are cancelled (default 5000). */
  shutdownGraceMs?: number;
  /**
   * On SIGTERM or `server.drain()`, how long the server keeps serving new requests after its
   * readiness turned 503, so that a balancer notices first (default 0); after it the listener
   * closes. Set it above the balancer's check interval times its fall count (docs/deploying.md).
   */
  drainDelayMs?: number;
  /**
   * On shutdown, how long running tasks get to finish before they are stopped and end `failed`,
   * saying they may be run again (default 0: stopped at once). Fleet tasks are handed to another
   * replica either way.
   */
  drainTimeoutMs?: number;
  /** Largest accepted message in bytes (default 16 MiB). */
  maxMessageBytes?: number;
  /**
   * Largest result one tool call may return, measured as JSON text (default 16 MiB; 0 = no cap).
   * A larger result becomes a tool error that says how large it was.
   */
  maxResultBytes?: number;
  /**
   * Tool calls running or waiting at once across all clients, inline ones included (default
   * 10,000); past it new calls are refused at once as overloaded (-32010). Bounds the memory a
   * flood of slow calls can hold.
   */
  maxCallsInFlight?: number;
  /** Where server-side diagnostics go (default: stderr; never stdout, which may carry protocol). */
  logError?: (message: string) => void;
  /**
   * The key material that seals a multi-round request's `requestState` (AES-256-GCM, the key derived
   * with HKDF): at least 32 random bytes, as a Buffer or as base64 or hex text (`openssl rand
   * -base64 32`); a passphrase is refused. Give every replica the same one, so a retry may reach any.
   * Absent: a random key per process, which is right for a single replica only (a retry reaching
   * another process, or this one after a restart, is refused and must start over).
   */
  requestStateKey?: string | Uint8Array;
  /** How long a round's `requestState` stays valid, in ms (default 600,000: ten minutes). */
  requestStateTtlMs?: number;
  /** Tasks: calls of tools with a `task` option that run beyond their request (see docs/tasks.md). */
  tasks?: TaskOptions;
  /**
   * Run blocking tools on a fleet of `weft worker` processes sharing this Redis, on any machine
   * (see docs/scaling-out.md). Tools choose with their own `placement`; `fleet.placement` is
   * the default (`'fleet'`).
   */
  fleet?: FleetOptions;
  /**
   * The OAuth scopes this server knows. With it, a tool, prompt, resource or template requiring a
   * scope not listed here is refused at registration (a typo fails at start, not at the first
   * call). Give it the same list as the auth hook's (`oauthResourceServer({ scopesSupported })`).
   */
  scopesSupported?: readonly string[];
  /**
   * List tools, prompts, resources and templates a caller's scopes do not reach, too (default
   * false: each caller sees only what it may use). Calls are checked either way.
   */
  listOutOfScope?: boolean;
  /**
   * How the pool is shared between callers (see docs/scaling-out.md, "Sharing the pool"). By default each
   * caller (the principal, else the legacy session, else the connection) gets a fair share of the
   * slots by pool time used; `key` and `weight` choose other callers and shares. `false`: first
   * come, first served, whoever calls.
   */
  fairness?: false | FairnessOptions;
  /**
   * What each caller may hold and spend, server-wide (tools add their own `limits`): calls in
   * flight, calls waiting, calls per minute, pool time per minute. A call over a limit is refused
   * at once (-32013, the limit and `retryAfterMs` in its data). With a fleet or a RedisTaskStore,
   * the counts are shared by every replica through that Redis.
   */
  limits?: LimitsOption;
  /**
   * Bounds on the tables that grow with callers: idle scheduler keys, listen streams per
   * connection and per server (see docs/security.md for each default).
   */
  bounds?: BoundsOptions;
  /**
   * Proxies in front of this server whose `Forwarded` / `X-Forwarded-For` name the client, as
   * addresses or CIDR blocks (`['127.0.0.1']`, `['10.0.0.0/8']`); default none. Without auth, the
   * client's address is the caller every fair share counts (docs/security.md, "Who a caller is"):
   * behind a proxy not listed here, all its clients are one caller.
   */
  trustProxy?: readonly string[];
  /**
   * OpenTelemetry traces and metrics (see docs/telemetry.md): on by default, reported to the
   * tracer and meter providers the application registered with `@opentelemetry/api` before it
   * built the server; without the API installed or a provider registered, nothing is done.
   * `false` turns it off even when providers are registered.
   */
  telemetry?: boolean;
}

/** `listen({ stdio: { principal } })`: who the stdio client is, in place of OAuth. */
export interface StdioListenOptions {
  /**
   * A fixed principal for the stdio connection (stdio has no OAuth): its scopes are checked,
   * `ctx.auth` is it, and it owns what the connection creates. Absent: no principal, as with `true`.
   */
  principal?: Principal;
}

export interface TaskOptions {
  /**
   * Where tasks are kept: in this process by default (`MemoryTaskStore`), or a shared store such
   * as `new RedisTaskStore({ url })` so that every replica can answer for every task. The server
   * closes it when it closes.
   */
  store?: TaskStore;
  /** How long a task is kept after it was created, in ms (default 3,600,000: an hour); 0 = no limit. */
  ttlMs?: number;
  /** How often clients are told to poll a task, in ms (default 1,000). */
  pollIntervalMs?: number;
}

export interface ListenOptions {
  /** Serve on this process's stdin/stdout; `{ principal }` gives its client a fixed principal. */
  stdio?: boolean | StdioListenOptions;
  /** Serve Streamable HTTP on this port (127.0.0.1 and `/mcp` unless told otherwise). */
  http?: HttpListenOptions;
  /**
   * Serve WebSocket (subprotocol `mcp`) on this port (127.0.0.1 unless told otherwise); the same
   * port as `http` shares it (upgrade requests go to WebSocket, the rest to Streamable HTTP).
   */
  ws?: WebSocketListenOptions;
  /**
   * Act as the owner of this process (default true): SIGINT/SIGTERM shut down gracefully, then
   * exit; a promise rejection nobody handles (a tool's stray promise) is logged instead of killing
   * the server; and no child process outlives the process, however it ends.
   */
  handleSignals?: boolean;
}

const SERVER_OPTION_KEYS = new Set([
  'name',
  'version',
  'title',
  'instructions',
  'cache',
  'timeoutMs',
  'pageSize',
  'enabledTags',
  'disabledTags',
  'pool',
  'shutdownGraceMs',
  'drainDelayMs',
  'drainTimeoutMs',
  'maxMessageBytes',
  'maxResultBytes',
  'maxCallsInFlight',
  'logError',
  'requestStateKey',
  'requestStateTtlMs',
  'tasks',
  'fleet',
  'scopesSupported',
  'listOutOfScope',
  'fairness',
  'limits',
  'bounds',
  'trustProxy',
  'telemetry',
]);
const TASK_OPTION_KEYS = new Set(['store', 'ttlMs', 'pollIntervalMs']);
const POOL_OPTION_KEYS = new Set([
  'maxThreads',
  'maxQueue',
  'graceMs',
  'niceIncrement',
  'lostSlotsLivenessMs',
]);

export function checkServerOptions(options: McpServerOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('new McpServer(options): options must be an object with at least name and version');
  }
  for (const key of Object.keys(options)) {
    if (!SERVER_OPTION_KEYS.has(key)) {
      throw new TypeError(
        `McpServer: unknown option "${key}". Known options: ${[...SERVER_OPTION_KEYS].join(', ')}`,
      );
    }
  }
  for (const key of Object.keys(options.pool ?? {})) {
    if (!POOL_OPTION_KEYS.has(key)) {
      throw new TypeError(
        `McpServer: unknown pool option "${key}". Known: ${[...POOL_OPTION_KEYS].join(', ')}`,
      );
    }
  }
  for (const key of Object.keys(options.tasks ?? {})) {
    if (!TASK_OPTION_KEYS.has(key)) {
      throw new TypeError(
        `McpServer: unknown tasks option "${key}". Known: ${[...TASK_OPTION_KEYS].join(', ')}`,
      );
    }
  }
  if (typeof options.name !== 'string' || options.name === '' || typeof options.version !== 'string') {
    throw new TypeError(
      'McpServer: name and version must be non-empty strings (they are sent as serverInfo)',
    );
  }
  const positive = (value: number | undefined, what: string, allowZero: boolean) => {
    if (value === undefined) return;
    if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
      throw new TypeError(
        `McpServer: ${what} must be a ${allowZero ? 'non-negative' : 'positive'} number, got ${value}`,
      );
    }
  };
  positive(options.timeoutMs, 'timeoutMs', true);
  positive(options.requestStateTtlMs, 'requestStateTtlMs', false);
  positive(options.pageSize, 'pageSize', false);
  positive(options.pool?.maxThreads, 'pool.maxThreads', false);
  positive(options.pool?.maxQueue, 'pool.maxQueue', true);
  positive(options.pool?.graceMs, 'pool.graceMs', true);
  positive(options.pool?.niceIncrement, 'pool.niceIncrement', true);
  positive(options.pool?.lostSlotsLivenessMs, 'pool.lostSlotsLivenessMs', true);
  positive(options.shutdownGraceMs, 'shutdownGraceMs', true);
  positive(options.drainDelayMs, 'drainDelayMs', true);
  positive(options.drainTimeoutMs, 'drainTimeoutMs', true);
  positive(options.maxMessageBytes, 'maxMessageBytes', false);
  positive(options.maxResultBytes, 'maxResultBytes', true);
  positive(options.maxCallsInFlight, 'maxCallsInFlight', true);
  positive(options.tasks?.ttlMs, 'tasks.ttlMs', true);
  positive(options.tasks?.pollIntervalMs, 'tasks.pollIntervalMs', false);
  if (options.telemetry !== undefined && typeof options.telemetry !== 'boolean') {
    throw new TypeError(
      `McpServer: telemetry must be true or false (got ${JSON.stringify(options.telemetry)}); leave it out to report to the OpenTelemetry providers the application registered`,
    );
  }
  if (options.tasks?.pollIntervalMs !== undefined && !Number.isInteger(options.tasks.pollIntervalMs)) {
    throw new TypeError(
      `McpServer: tasks.pollIntervalMs must be a whole number of ms, got ${options.tasks.pollIntervalMs}`,
    );
  }
  if (options.tasks?.ttlMs !== undefined && !Number.isInteger(options.tasks.ttlMs)) {
    throw new TypeError(`McpServer: tasks.ttlMs must be a whole number of ms, got ${options.tasks.ttlMs}`);
  }
  checkCacheOptions(options.cache);
  checkFleetOptions(options.fleet);
  if (options.scopesSupported !== undefined) {
    const checked = readScopes(options.scopesSupported, undefined);
    if (!checked.ok)
      throw new TypeError(`McpServer: ${checked.problem.replace(/^scopes/, 'scopesSupported')}`);
  }
  if (options.listOutOfScope !== undefined && typeof options.listOutOfScope !== 'boolean') {
    throw new TypeError('McpServer: listOutOfScope must be true or false');
  }
  checkFairnessOptions(options.fairness);
  checkBoundsOptions(options.bounds);
  checkTrustProxy(options.trustProxy);
  checkLimits(options.limits, 'McpServer: limits');
  checkTags(options.enabledTags, 'McpServer: enabledTags');
  checkTags(options.disabledTags, 'McpServer: disabledTags');
}

/**
 * Where per-caller counts are shared by replicas: the fleet's Redis, else the RedisTaskStore's
 * (under its key prefix); neither: each server counts its own callers.
 */
export function sharedCountsOf(options: McpServerOptions): {
  sharedCounts?: { url: string; keyPrefix?: string };
} {
  if (options.fleet)
    return {
      sharedCounts: { url: options.fleet.redis, keyPrefix: `weft:${options.fleet.queue ?? 'weft'}:limits:` },
    };
  const store = options.tasks?.store;
  if (store instanceof RedisTaskStore) {
    const { url, keyPrefix } = redisOfTaskStore(store);
    return { sharedCounts: { url, keyPrefix: `${keyPrefix}limits:` } };
  }
  return {};
}
