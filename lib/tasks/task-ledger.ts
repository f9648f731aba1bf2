/**
 * The memory task store's accounting for its limits (task-limits.ts): how many records and bytes
 * each caller and the whole store keep, and which records are finished, oldest first, so that
 * room is made by dropping those before anything is refused. A running task is never dropped.
 */
import type { TaskLimits } from './task-limits.js';

interface Entry {
  readonly caller: string;
  bytes: number;
  finished: boolean;
  /** When the record expires (epoch ms), Infinity when it has no ttl. */
  readonly expiresAt: number;
}

interface Tally {
  count: number;
  bytes: number;
  /** Its finished records, oldest finished first (a Map keeps insertion order). */
  readonly finished: Map<string, true>;
}

/** Why a new task cannot be kept: the limit, its value, and when a record is due to expire. */
export interface Refusal {
  readonly limit: keyof TaskLimits;
  readonly max: number;
  readonly retryAfterMs: number;
}

export class TaskLedger {
  readonly #limits: Required<TaskLimits>;
  readonly #entries = new Map<string, Entry>();
  readonly #callers = new Map<string, Tally>();
  readonly #all: Tally = { count: 0, bytes: 0, finished: new Map() };

  constructor(limits: Required<TaskLimits>) {
    this.#limits = limits;
  }

  /**
   * Makes room for a record of `bytes` for `caller`, calling `drop` for each finished record it
   * evicts (the store deletes it, then calls `remove`); a refusal when there is no room to make.
   */
  admit(caller: string, bytes: number, now: number, drop: (taskId: string) => void): Refusal | undefined {
    const { maxPerCaller, maxBytesPerCaller, maxTasks, maxBytes } = this.#limits;
    const mine = this.#callers.get(caller);
    if (mine !== undefined) {
      const refused =
        this.#evict(mine, () => mine.count + 1 > maxPerCaller, drop) ??
        this.#evict(mine, () => mine.bytes + bytes > maxBytesPerCaller, drop);
      if (refused) {
        const limit = mine.count + 1 > maxPerCaller ? 'maxPerCaller' : 'maxBytesPerCaller';
        return { limit, max: this.#limits[limit], retryAfterMs: this.#nextExpiry(now, caller) };
      }
    }
    const all = this.#all;
    const refused =
      this.#evict(all, () => all.count + 1 > maxTasks, drop) ??
      this.#evict(all, () => all.bytes + bytes > maxBytes, drop);
    if (!refused) return undefined;
    const limit = all.count + 1 > maxTasks ? 'maxTasks' : 'maxBytes';
    return { limit, max: this.#limits[limit], retryAfterMs: this.#nextExpiry(now) };
  }

  add(taskId: string, caller: string, bytes: number, expiresAt: number): void {
    this.#entries.set(taskId, { caller, bytes, finished: false, expiresAt });
    let mine = this.#callers.get(caller);
    if (mine === undefined) {
      mine = { count: 0, bytes: 0, finished: new Map() };
      this.#callers.set(caller, mine);
    }
    for (const tally of [mine, this.#all]) {
      tally.count++;
      tally.bytes += bytes;
    }
  }

  /**
   * A record was rewritten: its new size, and whether it is finished now. Over a byte limit, older
   * finished records make room (the record itself is kept: its result is what the caller awaits).
   */
  resize(taskId: string, bytes: number, finished: boolean, drop: (taskId: string) => void): void {
    const entry = this.#entries.get(taskId);
    if (entry === undefined) return;
    const mine = this.#callers.get(entry.caller)!;
    for (const tally of [mine, this.#all]) tally.bytes += bytes - entry.bytes;
    entry.bytes = bytes;
    if (finished && !entry.finished) {
      entry.finished = true;
      mine.finished.set(taskId, true);
      this.#all.finished.set(taskId, true);
    }
    const { maxBytesPerCaller, maxBytes } = this.#limits;
    const keep = (id: string) => id === taskId;
    this.#evict(mine, () => mine.bytes > maxBytesPerCaller, drop, keep);
    this.#evict(this.#all, () => this.#all.bytes > maxBytes, drop, keep);
  }

  remove(taskId: string): void {
    const entry = this.#entries.get(taskId);
    if (entry === undefined) return;
    this.#entries.delete(taskId);
    const mine = this.#callers.get(entry.caller)!;
    for (const tally of [mine, this.#all]) {
      tally.count--;
      tally.bytes -= entry.bytes;
      tally.finished.delete(taskId);
    }
    if (mine.count === 0) this.#callers.delete(entry.caller);
  }

  /** Records and bytes kept now, for tests and stats. */
  get totals(): { count: number; bytes: number; callers: number } {
    return { count: this.#all.count, bytes: this.#all.bytes, callers: this.#callers.size };
  }

  /** Drops finished records of `tally`, oldest first, while `over`; true when still over after. */
  #evict(
    tally: Tally,
    over: () => boolean,
    drop: (taskId: string) => void,
    keep: (taskId: string) => boolean = () => false,
  ): true | undefined {
    // Deleting from a Map while iterating it is safe: dropped entries are simply not visited.
    for (const taskId of tally.finished.keys()) {
      if (!over()) return undefined;
      if (keep(taskId)) continue;
      drop(taskId);
    }
    return over() ? true : undefined;
  }

  /** How long until one of `caller`'s records (or any, without a caller) expires; 1 s if none will. */
  #nextExpiry(now: number, caller?: string): number {
    let soonest = Number.POSITIVE_INFINITY;
    for (const entry of this.#entries.values()) {
      if (caller === undefined || entry.caller === caller) soonest = Math.min(soonest, entry.expiresAt);
    }
    return Number.isFinite(soonest) ? Math.max(1, soonest - now) : 1_000;
  }
}
