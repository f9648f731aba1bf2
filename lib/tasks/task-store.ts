/**
 * Where tasks live between requests. A store keeps records (so any replica can answer tasks/get)
 * and carries signals (a cancel, new input) to whichever replica runs the task: in one process
 * that is a function call, across replicas it is pub/sub. The router only talks to this
 * interface, so the in-memory store and the Redis store are interchangeable, and both pass the
 * same contract tests (test/tasks/task-store-contract.ts).
 *
 * Rules every store keeps:
 * - `create` resolves only once a `get` from anywhere would find the record (durable create).
 * - A terminal record never changes again: `update` on it resolves undefined and writes nothing,
 *   which is what makes a cancel final whatever the handler produces later.
 * - A record is gone for everyone once its ttlMs has passed since creation.
 */
import type { TaskChange, TaskRecord } from './task-record.js';

/** What one replica tells the replica running a task. */
export type TaskSignal =
  | { kind: 'cancel'; taskId: string }
  /** New answers were stored for a task waiting for input: its runner should look again. */
  | { kind: 'input'; taskId: string }
  /** A task's record changed: replicas tell their listen streams that asked for it. */
  | { kind: 'changed'; taskId: string };

export interface TaskStore {
  create(record: TaskRecord): Promise<void>;
  /** The record, or undefined when there is none (never created, or expired). */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * Applies `change` unless the record is terminal or gone; resolves the record as changed, or
   * undefined when nothing was written. `lastUpdatedAt` is set by the store.
   */
  update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined>;
  /** Up to `limit` records of `owner`, ordered by taskId, starting after `afterTaskId`. */
  list(owner: string, afterTaskId: string | undefined, limit: number): Promise<TaskRecord[]>;
  /** Delivers `signal` to every subscriber, on every replica sharing this store. */
  signal(signal: TaskSignal): Promise<void>;
  /** Calls `listener` for each signal; returns the function that stops it. */
  subscribe(listener: (signal: TaskSignal) => void): () => void;
  /** Resolves once the store is reachable and its subscriptions hear signals (the server awaits it in listen). */
  ready(): Promise<void>;
  /**
   * This replica runs `taskId` and is alive: held until `release`, renewed by the store itself.
   * A store shared by several replicas fails the tasks of a replica whose leases lapsed.
   */
  hold(taskId: string): void;
  release(taskId: string): void;
  /**
   * Offers this replica the tasks of replicas that stopped, when their work outlives them (a
   * `fleetJob` on the fleet): the store holds an offered task for this replica first, and
   * `adopt` returns true when it takes the task over (it then releases it when done), false to
   * have it failed as a lost task. Stores that are not shared never offer anything.
   */
  onOrphan?(adopt: (record: TaskRecord) => boolean): void;
  /**
   * This replica is stopping and leaves a held task whose work goes on elsewhere (on the fleet):
   * another replica is to adopt it at once, not after a lease lapses. Only shared stores have it.
   */
  handOver?(taskId: string): void;
  close(): Promise<void>;
  /** Cuts the store's connections at once, when `close` did not finish in time (shutdown's bound). */
  disconnect?(): void;
}
