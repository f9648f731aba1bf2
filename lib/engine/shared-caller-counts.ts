/**
 * Per-caller counts that every replica shares, in the Redis the server already has (the fleet's, or
 * the RedisTaskStore's): so a caller limited to 8 calls in flight has 8 across all replicas, not 8
 * on each. Each entry is one Lua script (atomic: every check, then every count, or nothing), timed
 * on Redis's own clock (TIME), so replicas whose clocks disagree still agree on a minute.
 *
 * A call in flight is a member of a sorted set scored by its lease's end: a replica that dies
 * without leaving stops counting once its leases lapse (LEASE_MS); live replicas renew theirs.
 *
 * A Redis outage must not stop calls: when Redis cannot answer, counting falls back to this replica
 * alone (LocalCallerCounts), said once in the log, and goes back to Redis once it answers again.
 * Meanwhile each replica enforces every limit on its own calls, so the fleet as a whole may pass a
 * limit by as many times as there are replicas; calls entered during the outage leave locally.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { loadIoredis } from '../optional-peers.js';
import { redactedUrl } from '../redis-url.js';
import { type CallerCounts, type CountCheck, type EntryResult, LocalCallerCounts } from './caller-counts.js';

/** How long a call counts in flight without its replica renewing it. */
const LEASE_MS = 30_000;
const RENEW_EVERY_MS = 10_000;
/** A Redis slower than this is treated as down for that call (it falls back, it does not wait). */
const COMMAND_TIMEOUT_MS = 500;
/** How often a replica counting alone asks whether Redis is back. */
const PROBE_EVERY_MS = 1_000;

const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** KEYS: one counter per check; ARGV: member, lease, then kind and max per check. */
const ENTER = `${NOW}
local member = ARGV[1]
local lease = tonumber(ARGV[2])
local moved = {}
for i = 1, #KEYS do
  local kind = ARGV[1 + 2 * i]
  local max = tonumber(ARGV[2 + 2 * i])
  if kind == 'f' then
    redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)
    if redis.call('ZCARD', KEYS[i]) >= max then return {i, -1} end
  else
    local arrival = math.max(tonumber(redis.call('GET', KEYS[i]) or '0'), now)
    if kind == 'r' then
      moved[i] = arrival + 60000 / max
      if moved[i] - now > 60000 then return {i, math.ceil(moved[i] - now - 60000)} end
    elseif arrival - now >= 60000 then
      return {i, math.ceil(arrival - now - 60000) + 1}
    end
  end
end
for i = 1, #KEYS do
  local kind = ARGV[1 + 2 * i]
  if kind == 'f' then
    redis.call('ZADD', KEYS[i], now + lease, member)
    redis.call('PEXPIRE', KEYS[i], lease)
  elseif kind == 'r' then
    redis.call('SET', KEYS[i], string.format('%.3f', moved[i]), 'PX', math.ceil(moved[i] - now) + 1000)
  end
end
return {0, 0}`;

/** KEYS: pool-time counters; ARGV: the cost (ms of the counter's clock) per key. */
const CHARGE = `${NOW}
for i = 1, #KEYS do
  local arrival = math.max(tonumber(redis.call('GET', KEYS[i]) or '0'), now) + tonumber(ARGV[i])
  redis.call('SET', KEYS[i], string.format('%.3f', arrival), 'PX', math.ceil(arrival - now) + 1000)
end
return 0`;

/** KEYS: in-flight sets; ARGV: lease, then one member per key (the same member may repeat). */
const RENEW = `${NOW}
local lease = tonumber(ARGV[1])
for i = 1, #KEYS do
  if redis.call('ZADD', KEYS[i], 'XX', 'CH', now + lease, ARGV[1 + i]) >= 0 then
    redis.call('PEXPIRE', KEYS[i], lease)
  end
end
return 0`;

const KIND_CODE = { callsInFlight: 'f', callsPerMinute: 'r', poolMsPerMinute: 'p' } as const;

export interface SharedCallerCountsOptions {
  /** The Redis URL (redis:// or rediss://). */
  url: string;
  /** Prefix of every key (default `weft:limits:`). */
  keyPrefix?: string;
  logError: (message: string) => void;
}

export class SharedCallerCounts implements CallerCounts {
  #connection: Redis | undefined;
  readonly #redisUrl: string;
  readonly #local = new LocalCallerCounts();
  readonly #prefix: string;
  readonly #url: string;
  readonly #logError: (message: string) => void;
  readonly #replica = randomUUID();
  /** This replica's entries in Redis: member -> the in-flight sets it is in. */
  readonly #held = new Map<string, string[]>();
  #nextMember = 1;
  /** Whether Redis answered last time: false while counting falls back to this replica. */
  #shared = true;
  #renewTimer: NodeJS.Timeout | undefined;
  #opening: Promise<void> | undefined;
  /** While counting falls back: pings Redis until it answers (a timeout does not drop the socket). */
  #probeTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: SharedCallerCountsOptions) {
    this.#prefix = options.keyPrefix ?? 'weft:limits:';
    this.#url = redactedUrl(options.url);
    this.#redisUrl = options.url;
    this.#logError = options.logError;
  }

  /**
   * The connection, made on first use: a server whose limits count nothing never loads ioredis
   * (an optional peer) nor opens a connection.
   */
  get #redis(): Redis {
    if (this.#connection) return this.#connection;
    // No offline queue: while Redis is away a command fails at once, and the call is counted here.
    const redis = new (loadIoredis('limits.perCaller shared through Redis').Redis)(this.#redisUrl, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: COMMAND_TIMEOUT_MS,
    });
    redis.on('error', (error: Error) => this.#lost(error));
    redis.on('ready', () => this.#regained());
    redis.defineCommand('weftLimitEnter', { lua: ENTER });
    redis.defineCommand('weftLimitCharge', { lua: CHARGE });
    redis.defineCommand('weftLimitRenew', { lua: RENEW });
    this.#connection = redis;
    return redis;
  }

  /** Whether counts are shared now (false while Redis is unreachable and this replica counts alone). */
  get shared(): boolean {
    return this.#shared;
  }

  /**
   * Connects, once (on the first call that is counted: a server whose limits count nothing never
   * opens a connection); never rejects: a Redis that cannot be reached means counting here.
   */
  open(): Promise<void> {
    this.#opening ??= this.#open();
    return this.#opening;
  }

  async #open(): Promise<void> {
    try {
      await this.#redis.connect();
    } catch (error) {
      this.#lost(error as Error);
    }
    this.#renewTimer = setInterval(() => this.#renew(), RENEW_EVERY_MS).unref();
  }

  async enter(checks: readonly CountCheck[]): Promise<EntryResult> {
    await this.open();
    if (!this.#shared) return this.#local.enter(checks);
    const member = `${this.#replica}:${this.#nextMember++}`;
    const keys = checks.map((check) => this.#prefix + check.counter);
    const args: (string | number)[] = [member, LEASE_MS];
    for (const check of checks) args.push(KIND_CODE[check.kind], check.max);
    let answer: [number, number];
    try {
      answer = (await (this.#redis as unknown as RedisWithScripts).weftLimitEnter(
        keys.length,
        ...keys,
        ...args,
      )) as [number, number];
    } catch (error) {
      this.#lost(error as Error);
      return this.#local.enter(checks);
    }
    const [index, retryAfterMs] = answer;
    if (index > 0)
      return { passed: false, index: index - 1, retryAfterMs: retryAfterMs < 0 ? undefined : retryAfterMs };
    const inFlight = checks
      .filter((check) => check.kind === 'callsInFlight')
      .map((check) => this.#prefix + check.counter);
    if (inFlight.length === 0) return { passed: true, leave: () => {} };
    this.#held.set(member, inFlight);
    return {
      passed: true,
      leave: () => {
        if (!this.#held.delete(member)) return;
        // A leave Redis does not take ends with the lease: the call stops counting within LEASE_MS.
        const pipeline = this.#redis.pipeline();
        for (const key of inFlight) pipeline.zrem(key, member);
        pipeline.exec().catch(() => {});
      },
    };
  }

  charge(checks: readonly CountCheck[], ms: number): void {
    const pool = checks.filter((check) => check.kind === 'poolMsPerMinute');
    if (pool.length === 0) return;
    if (!this.#shared) {
      this.#local.charge(pool, ms);
      return;
    }
    const keys = pool.map((check) => this.#prefix + check.counter);
    const costs = pool.map((check) => ((ms * 60_000) / check.max).toFixed(3));
    (this.#redis as unknown as RedisWithScripts)
      .weftLimitCharge(keys.length, ...keys, ...costs)
      .catch((error: Error) => {
        this.#lost(error);
        this.#local.charge(pool, ms);
      });
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#renewTimer);
    clearInterval(this.#probeTimer);
    const redis = this.#connection;
    if (redis === undefined) return;
    if (this.#opening === undefined || redis.status !== 'ready') redis.disconnect();
    else await redis.quit().catch(() => redis.disconnect());
  }

  #renew(): void {
    if (!this.#shared || this.#held.size === 0) return;
    const keys: string[] = [];
    const members: string[] = [];
    for (const [member, sets] of this.#held) {
      for (const key of sets) {
        keys.push(key);
        members.push(member);
      }
    }
    (this.#redis as unknown as RedisWithScripts)
      .weftLimitRenew(keys.length, ...keys, LEASE_MS, ...members)
      .catch((error: Error) => this.#lost(error));
  }

  #lost(error: Error): void {
    if (this.#closed || !this.#shared) return;
    this.#shared = false;
    this.#logError(
      `weft: limits: the shared Redis at ${this.#url} cannot be reached (${error.message}); each replica counts its own callers until it is back, so a limit may be passed by as many times as there are replicas meanwhile`,
    );
    this.#probeTimer = setInterval(() => {
      this.#redis.ping().then(
        () => this.#regained(),
        () => {},
      );
    }, PROBE_EVERY_MS).unref();
  }

  #regained(): void {
    if (this.#shared || this.#closed) return;
    this.#shared = true;
    clearInterval(this.#probeTimer);
    this.#logError(`weft: limits: the shared Redis at ${this.#url} answers again; counting is shared again`);
  }
}

interface RedisWithScripts {
  weftLimitEnter(count: number, ...args: (string | number)[]): Promise<unknown>;
  weftLimitCharge(count: number, ...args: (string | number)[]): Promise<unknown>;
  weftLimitRenew(count: number, ...args: (string | number)[]): Promise<unknown>;
}
