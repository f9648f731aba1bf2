/**
 * The task store for several replicas: records in Redis, so any replica answers tasks/get and
 * accepts tasks/cancel and tasks/update for any task; signals over Redis pub/sub, so a cancel
 * reaches the replica that runs the task; leases, so a dead replica's tasks do not stay `working`.
 *
 * How it keeps the store contract (task-store.ts):
 * - A record is one JSON string under `<prefix>task:<id>`, written with the task's TTL (PX), so it
 *   is gone for every replica once the TTL has passed; updates keep that TTL (KEEPTTL).
 * - An update is a compare-and-set: read, check that the record is not terminal, write only if
 *   the stored text is still what was read (a Lua script, which also moves the byte totals of the
 *   limits: redis-task-admission.ts), retry otherwise. No JSON is re-encoded inside Redis, so
 *   results keep their exact shape.
 * - A replica that runs a task holds `<prefix>lease:<id>` (its replica id, PX leaseMs) and
 *   renews it every leaseMs / 3. Every replica sweeps the running set every leaseMs / 2: a task
 *   whose lease has lapsed is failed with a message that says its replica stopped, unless its work
 *   runs on the fleet (`fleetJob`): then the first replica to take its lease (SET NX) adopts it.
 * - tasks/list: one sorted set per owner (members scored 0, read in lexicographic order), cleaned
 *   of expired ids as they are met.
 */

import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { loadIoredis } from '../optional-peers.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { checkRedisUrl, redactedUrl } from '../redis-url.js';
import { CREATE_TASK, REWRITE_TASK } from './redis-task-admission.js';
import { type TaskLimits, taskCallerOf, taskLimitError, taskLimitsOf } from './task-limits.js';
import type { TaskChange, TaskRecord } from './task-record.js';
import { isTerminal } from './task-record.js';
import type { TaskSignal, TaskStore } from './task-store.js';

export interface RedisTaskStoreOptions {
  /** `redis://[user:password@]host:port[/db]`: the Redis every replica shares. */
  url: string;
  /** Prefix of every key and of the signal channel (default `weft:`), to share one Redis safely. */
  keyPrefix?: string;
  /**
   * How long a running task's lease lasts without renewal, in ms (default 10,000). When the replica
   * running a task dies, the task is failed about this long later.
   */
  leaseMs?: number;
  /**
   * Tasks and bytes of task records kept per caller and in all, counted across every replica
   * (`maxPerCaller` 1,000, `maxBytesPerCaller` 32 MiB, `maxTasks` 10,000, `maxBytes` 128 MiB by
   * default; task-limits.ts), as the memory store counts them.
   */
  limits?: TaskLimits;
}

/** The scripts of redis-task-admission.ts, as ioredis defines them on the connection. */
interface LedgerScripts {
  weftCreateTask(...args: (string | number)[]): Promise<[string, string]>;
  weftRewriteTask(...args: (string | number)[]): Promise<number>;
}

const MAX_UPDATE_TRIES = 32;

let sharedRedisOf: (store: RedisTaskStore) => { url: string; keyPrefix: string };

/**
 * The Redis (full URL, credentials included) and key prefix a store uses, for the server's
 * per-caller limits to count in the same Redis. Not a public property: the URL may hold a password.
 */
export function redisOfTaskStore(store: RedisTaskStore): { url: string; keyPrefix: string } {
  return sharedRedisOf(store);
}

export class RedisTaskStore implements TaskStore {
  static {
    sharedRedisOf = (store) => ({ url: store.#fullUrl, keyPrefix: store.#prefix });
  }
  readonly #redis: Redis;
  #subscriber: Redis | undefined;
  #subscribed: Promise<unknown> | undefined;
  readonly #prefix: string;
  readonly #leaseMs: number;
  readonly #limits: Required<TaskLimits>;
  readonly #replica = randomUUID();
  readonly #held = new Set<string>();
  readonly #listeners = new Set<(signal: TaskSignal) => void>();
  #adopt: ((record: TaskRecord) => boolean) | undefined;
  readonly #timers: NodeJS.Timeout[] = [];
  #closed = false;
  /** Set by ready(): a server serves with this store, so it listens for signals and sweeps. */
  #served = false;
  readonly #url: string;
  readonly #fullUrl: string;
  /** The last connection error, for a message that says why Redis could not be reached. */
  #lastError: Error | undefined;

  constructor(options: RedisTaskStoreOptions) {
    checkRedisUrl(options?.url, 'RedisTaskStore: url');
    const leaseMs = options.leaseMs ?? 10_000;
    if (!Number.isInteger(leaseMs) || leaseMs < 300) {
      throw new TypeError(
        `RedisTaskStore: leaseMs must be a whole number of at least 300 ms, got ${leaseMs}`,
      );
    }
    this.#prefix = options.keyPrefix ?? 'weft:';
    this.#leaseMs = leaseMs;
    this.#url = redactedUrl(options.url);
    this.#fullUrl = options.url;
    // Connected on first use: a process that only builds the server (a `weft worker` loading the
    // server module for its tools) never talks to the task store at all.
    this.#redis = new (loadIoredis('RedisTaskStore').Redis)(options.url, {
      lazyConnect: true,
      maxRetriesPerRequest: 3,
    });
    // ioredis reconnects by itself; without a listener it would print every failed attempt.
    this.#redis.on('error', (error: Error) => {
      this.#lastError = error;
    });
    this.#redis.defineCommand('weftCreateTask', { numberOfKeys: 2, lua: CREATE_TASK });
    this.#redis.defineCommand('weftRewriteTask', { numberOfKeys: 1, lua: REWRITE_TASK });
    this.#limits = taskLimitsOf(options.limits, 'RedisTaskStore: limits');
    this.#timers.push(setInterval(() => this.#renew(), Math.floor(leaseMs / 3)).unref());
  }

  async create(record: TaskRecord): Promise<void> {
    const now = Date.now();
    const px = record.ttlMs === null ? 0 : Math.max(1, record.createdAt + record.ttlMs - now);
    const json = JSON.stringify(record);
    const [outcome, expiresAt] = await (this.#redis as unknown as LedgerScripts).weftCreateTask(
      this.#taskKey(record.taskId),
      this.#ownerKey(record.owner ?? ''),
      this.#prefix,
      now,
      json,
      Buffer.byteLength(json), // recordBytes, of the text already made
      px,
      px === 0 ? 'inf' : now + px,
      record.taskId,
      taskCallerOf(record),
      record.owner === undefined ? '0' : '1',
      ...this.#limitArgs(),
    );
    if (outcome === 'ok') return;
    if (outcome === 'exists') throw new Error(`Task ${record.taskId} already exists`);
    const limit = outcome as keyof TaskLimits;
    const due = Number(expiresAt);
    throw taskLimitError(limit, this.#limits[limit], Number.isFinite(due) ? due - now : 1_000);
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const raw = await this.#redis.get(this.#taskKey(taskId));
    return raw === null ? undefined : (JSON.parse(raw) as TaskRecord);
  }

  async update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    const key = this.#taskKey(taskId);
    for (let attempt = 0; attempt < MAX_UPDATE_TRIES; attempt++) {
      const raw = await this.#redis.get(key);
      if (raw === null) return undefined;
      const record = JSON.parse(raw) as TaskRecord;
      if (isTerminal(record.status)) return undefined;
      for (const [field, value] of Object.entries(change)) {
        if (value === undefined) delete (record as unknown as Record<string, unknown>)[field];
        else (record as unknown as Record<string, unknown>)[field] = value;
      }
      record.lastUpdatedAt = Math.max(Date.now(), record.lastUpdatedAt);
      const next = JSON.stringify(record);
      const written = await (this.#redis as unknown as LedgerScripts).weftRewriteTask(
        key,
        this.#prefix,
        Date.now(),
        raw,
        next,
        Buffer.byteLength(next), // recordBytes, of the text already made
        taskId,
        taskCallerOf(record),
        isTerminal(record.status) ? '1' : '0',
        ...this.#limitArgs(),
      );
      if (written === 1) return record;
    }
    throw new Error(`Task ${taskId}: ${MAX_UPDATE_TRIES} concurrent updates in a row; giving up on this one`);
  }

  async list(owner: string, afterTaskId: string | undefined, limit: number): Promise<TaskRecord[]> {
    const key = this.#ownerKey(owner);
    const found: TaskRecord[] = [];
    let from = afterTaskId === undefined ? '-' : `(${afterTaskId}`;
    while (found.length < limit) {
      const ids = await this.#redis.zrangebylex(key, from, '+', 'LIMIT', 0, limit);
      if (ids.length === 0) break;
      const raws = await this.#redis.mget(ids.map((id) => this.#taskKey(id)));
      const gone: string[] = [];
      ids.forEach((id, index) => {
        const raw = raws[index];
        if (raw === null || raw === undefined) gone.push(id);
        else if (found.length < limit) found.push(JSON.parse(raw) as TaskRecord);
      });
      if (gone.length > 0) await this.#redis.zrem(key, ...gone);
      from = `(${ids[ids.length - 1]}`;
    }
    return found;
  }

  async signal(signal: TaskSignal): Promise<void> {
    await this.#redis.publish(this.#channel(), JSON.stringify(signal));
  }

  subscribe(listener: (signal: TaskSignal) => void): () => void {
    this.#listeners.add(listener);
    // The channel is joined once a server serves with this store (ready), not when it is built.
    if (this.#served) this.#listen();
    return () => this.#listeners.delete(listener);
  }

  /** Joins the signal channel, once, for every listener. */
  #listen(): void {
    if (this.#subscriber !== undefined || this.#closed) return;
    const subscriber = this.#redis.duplicate();
    this.#subscriber = subscriber;
    subscriber.on('error', (error: Error) => {
      this.#lastError = error;
    });
    subscriber.on('message', (_channel: string, message: string) => {
      let signal: TaskSignal;
      try {
        signal = JSON.parse(message) as TaskSignal;
      } catch {
        return;
      }
      for (const each of this.#listeners) each(signal);
    });
    this.#subscribed = subscriber.subscribe(this.#channel()).catch(() => {});
  }

  /**
   * Resolves once the signal channel is subscribed (signals published before that are not heard).
   * Only from then on does this store listen for signals and sweep for tasks whose replica stopped:
   * a store a server serves with does, never one a process merely built (a `weft worker` loading
   * the server module for its tools opens no connection at all).
   */
  async ready(): Promise<void> {
    if (!this.#served && !this.#closed) {
      this.#served = true;
      this.#timers.push(setInterval(() => this.#sweep(), Math.floor(this.#leaseMs / 2)).unref());
      if (this.#listeners.size > 0) this.#listen();
    }
    try {
      await this.#redis.ping();
    } catch (error) {
      const why = this.#lastError?.message ?? (error as Error)?.message ?? String(error);
      throw new Error(
        `RedisTaskStore: cannot reach Redis at ${this.#url} (${why}); check the url and that the server is running`,
      );
    }
    await this.#subscribed;
  }

  hold(taskId: string): void {
    this.#held.add(taskId);
    this.#redis
      .multi()
      .set(this.#leaseKey(taskId), this.#replica, 'PX', this.#leaseMs)
      .sadd(this.#runningKey(), taskId)
      .exec()
      .catch(() => {});
  }

  onOrphan(adopt: (record: TaskRecord) => boolean): void {
    this.#adopt = adopt;
  }

  handOver(taskId: string): void {
    this.#held.delete(taskId);
    // Still in the running set, its lease gone: the next sweep of another replica adopts it.
    this.#redis.del(this.#leaseKey(taskId)).catch(() => {});
  }

  release(taskId: string): void {
    this.#held.delete(taskId);
    this.#redis
      .multi()
      .del(this.#leaseKey(taskId))
      .srem(this.#runningKey(), taskId)
      .exec()
      .catch(() => {});
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const timer of this.#timers) clearInterval(timer);
    this.#listeners.clear();
    await Promise.all(
      [this.#subscriber, this.#redis].map((connection) =>
        connection?.quit().catch(() => connection.disconnect()),
      ),
    );
  }

  /** Shutdown's last resort when `close` hangs (Redis up but not answering): drop both connections. */
  disconnect(): void {
    this.#closed = true;
    for (const timer of this.#timers) clearInterval(timer);
    this.#subscriber?.disconnect();
    this.#redis.disconnect();
  }

  #renew(): void {
    if (this.#held.size === 0 || this.#closed) return;
    const pipeline = this.#redis.pipeline();
    for (const taskId of this.#held) pipeline.set(this.#leaseKey(taskId), this.#replica, 'PX', this.#leaseMs);
    pipeline.exec().catch(() => {});
  }

  /** Fails the tasks whose replica stopped renewing their lease. */
  async #sweep(): Promise<void> {
    if (this.#closed) return;
    try {
      const running = await this.#redis.smembers(this.#runningKey());
      const others = running.filter((taskId) => !this.#held.has(taskId));
      if (others.length === 0) return;
      const leases = await this.#redis.mget(others.map((taskId) => this.#leaseKey(taskId)));
      for (const [index, taskId] of others.entries()) {
        if (leases[index] !== null) continue;
        if (await this.#adopted(taskId)) continue;
        const message = `The server replica running this task stopped (its lease lapsed ${this.#leaseMs} ms after its last renewal); the work is lost, run the tool again`;
        await this.update(taskId, {
          status: 'failed',
          statusMessage: message,
          error: { code: ErrorCode.InternalError, message },
          inputRequests: undefined,
        });
        await this.#redis.srem(this.#runningKey(), taskId);
      }
    } catch {
      // Redis is unreachable for now; the next sweep tries again.
    }
  }

  /** Takes over a lapsed task whose work runs on the fleet, when this replica can follow it. */
  async #adopted(taskId: string): Promise<boolean> {
    if (this.#adopt === undefined) return false;
    const record = await this.get(taskId);
    if (record === undefined || isTerminal(record.status) || record.fleetJob === undefined) return false;
    // Only one replica wins the lease; the others see it held at their next sweep.
    const claimed = await this.#redis.set(this.#leaseKey(taskId), this.#replica, 'PX', this.#leaseMs, 'NX');
    if (claimed !== 'OK') return true;
    this.#held.add(taskId);
    if (this.#adopt(record)) return true;
    this.#held.delete(taskId);
    await this.#redis.del(this.#leaseKey(taskId));
    return false;
  }

  /** The limits as both scripts take them, last (redis-task-admission.ts). */
  #limitArgs(): number[] {
    const { maxPerCaller, maxBytesPerCaller, maxTasks, maxBytes } = this.#limits;
    return [maxPerCaller, maxBytesPerCaller, maxTasks, maxBytes];
  }

  #taskKey(taskId: string): string {
    return `${this.#prefix}task:${taskId}`;
  }

  #leaseKey(taskId: string): string {
    return `${this.#prefix}lease:${taskId}`;
  }

  #ownerKey(owner: string): string {
    return `${this.#prefix}owner:${owner}`;
  }

  #runningKey(): string {
    return `${this.#prefix}running`;
  }

  #channel(): string {
    return `${this.#prefix}signals`;
  }
}
