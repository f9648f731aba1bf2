/**
 * The default task store: a Map in this process. Nothing to set up, nothing shared: right for one
 * replica. Signals are plain function calls, and there are no leases to renew (a process that dies
 * takes its tasks with it, and nobody else could have read them).
 *
 * Expiry is checked on every read, before every new task is admitted (expired records leave the
 * limits first, soonest first: expiry-queue.ts) and swept once a minute (an unref'd timer, so it
 * never keeps a process alive), so an expired task is gone whether or not anyone asks for it.
 *
 * Bounded per caller and in total, in records and bytes (`limits`, task-limits.ts): the oldest
 * finished records make room, and a task that would need a running one's room is refused at
 * creation.
 */

import { ExpiryQueue } from './expiry-queue.js';
import { TaskLedger } from './task-ledger.js';
import { recordBytes, type TaskLimits, taskCallerOf, taskLimitError, taskLimitsOf } from './task-limits.js';
import type { TaskChange, TaskRecord } from './task-record.js';
import { isTerminal } from './task-record.js';
import type { TaskSignal, TaskStore } from './task-store.js';

const SWEEP_EVERY_MS = 60_000;

export class MemoryTaskStore implements TaskStore {
  readonly #records = new Map<string, TaskRecord>();
  readonly #listeners = new Set<(signal: TaskSignal) => void>();
  readonly #now: () => number;
  readonly #ledger: TaskLedger;
  readonly #expiries = new ExpiryQueue();
  readonly #drop = (taskId: string) => this.#delete(taskId);
  #sweeper: NodeJS.Timeout | undefined;

  /** `limits`: how many tasks and bytes a caller and the store keep (defaults in task-limits.ts). */
  constructor(options: { now?: () => number; limits?: TaskLimits } = {}) {
    this.#now = options.now ?? Date.now;
    this.#ledger = new TaskLedger(taskLimitsOf(options.limits, 'MemoryTaskStore: limits'));
  }

  /** Records and bytes kept now, and how many callers own them. */
  get totals(): { count: number; bytes: number; callers: number } {
    return this.#ledger.totals;
  }

  async create(record: TaskRecord): Promise<void> {
    if (this.#records.has(record.taskId)) throw new Error(`Task ${record.taskId} already exists`);
    const caller = taskCallerOf(record);
    const bytes = recordBytes(record);
    this.#dropExpired();
    const refused = this.#ledger.admit(caller, bytes, this.#now(), this.#drop);
    if (refused) throw taskLimitError(refused.limit, refused.max, refused.retryAfterMs);
    const expiresAt = record.ttlMs === null ? Number.POSITIVE_INFINITY : record.createdAt + record.ttlMs;
    this.#ledger.add(record.taskId, caller, bytes, expiresAt);
    this.#records.set(record.taskId, structuredClone(record));
    if (record.ttlMs !== null) this.#expiries.push(record.taskId, expiresAt);
    this.#sweeper ??= setInterval(() => this.#sweep(), SWEEP_EVERY_MS).unref();
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const record = this.#live(taskId);
    return record === undefined ? undefined : structuredClone(record);
  }

  async update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    const record = this.#live(taskId);
    if (record === undefined || isTerminal(record.status)) return undefined;
    for (const [key, value] of Object.entries(change)) {
      if (value === undefined) delete (record as unknown as Record<string, unknown>)[key];
      else (record as unknown as Record<string, unknown>)[key] = structuredClone(value);
    }
    record.lastUpdatedAt = Math.max(this.#now(), record.lastUpdatedAt);
    this.#ledger.resize(taskId, recordBytes(record), isTerminal(record.status), this.#drop);
    return structuredClone(record);
  }

  async list(owner: string, afterTaskId: string | undefined, limit: number): Promise<TaskRecord[]> {
    const mine: TaskRecord[] = [];
    for (const id of this.#records.keys()) {
      const record = this.#live(id);
      if (record?.owner === owner && (afterTaskId === undefined || record.taskId > afterTaskId)) {
        mine.push(record);
      }
    }
    mine.sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0));
    return mine.slice(0, limit).map((record) => structuredClone(record));
  }

  async signal(signal: TaskSignal): Promise<void> {
    for (const listener of this.#listeners) listener(signal);
  }

  subscribe(listener: (signal: TaskSignal) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async ready(): Promise<void> {}

  hold(_taskId: string): void {}

  release(_taskId: string): void {}

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    this.#listeners.clear();
    this.#expiries.clear();
  }

  #live(taskId: string): TaskRecord | undefined {
    const record = this.#records.get(taskId);
    if (record === undefined) return undefined;
    if (record.ttlMs !== null && this.#now() >= record.createdAt + record.ttlMs) {
      this.#delete(taskId);
      return undefined;
    }
    return record;
  }

  #delete(taskId: string): void {
    this.#records.delete(taskId);
    this.#ledger.remove(taskId);
    if (this.#expiries.needsCompaction(this.#records.size)) {
      this.#expiries.rebuild(
        [...this.#records.values()]
          .filter((record) => record.ttlMs !== null)
          .map((record) => [record.taskId, record.createdAt + record.ttlMs!] as const),
      );
    }
  }

  /** Every record whose time has passed leaves, soonest first (ids already gone are skipped). */
  #dropExpired(): void {
    for (const id of this.#expiries.due(this.#now())) if (this.#records.has(id)) this.#live(id);
  }

  #sweep(): void {
    this.#dropExpired();
  }
}
