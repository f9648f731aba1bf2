/**
 * The tasks/result calls of one replica that wait for a task to end. Each looks at the store at
 * least every pollIntervalMs (a signal can be lost), and is woken at once when this replica hears
 * that the task changed: it wrote the end itself, or a cancel signal came.
 */
import type { TaskRecord } from '../tasks/task-record.js';
import { isTerminal } from '../tasks/task-record.js';
import type { TaskStore } from '../tasks/task-store.js';

export class TaskWaiters {
  readonly #store: TaskStore;
  readonly #waiting = new Map<string, Set<() => void>>();

  constructor(store: TaskStore) {
    this.#store = store;
  }

  /** Resolves once `taskId` is terminal (or gone), or as it stands when `signal` aborts. */
  async settled(taskId: string, signal: AbortSignal): Promise<TaskRecord | undefined> {
    for (;;) {
      const record = await this.#store.get(taskId);
      if (record === undefined || isTerminal(record.status)) return record;
      if (signal.aborted) return record;
      await new Promise<void>((resolve) => {
        const waiters = this.#waiting.get(taskId) ?? new Set();
        this.#waiting.set(taskId, waiters);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(done);
          if (waiters.size === 0) this.#waiting.delete(taskId);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, record.pollIntervalMs);
        waiters.add(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  /** The task may have ended: its waiters look again now. */
  wake(taskId: string): void {
    for (const wake of [...(this.#waiting.get(taskId) ?? [])]) wake();
  }
}
