/**
 * Admission control: who may start now, who waits, and who is refused.
 *
 * Two kinds of capacity gate a call: the pool's thread slots (blocking tools only) and each tool's
 * own `concurrency`. Calls that cannot start wait in one FIFO queue whose length is bounded: past
 * `maxQueue` a call is refused at once ("overloaded") instead of growing memory without bound.
 * A thread slot is given back only when its thread is really free, which for a terminated thread
 * means after it has exited: a slot whose thread is still dying is not a free slot.
 */
import type { RegisteredTool } from '../tools/registered-tool.js';

export type Release = () => void;

export class OverloadedError extends Error {
  override readonly name = 'OverloadedError';
}

interface Waiter {
  tool: RegisteredTool;
  needsThread: boolean;
  resolve: (release: Release) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal;
  onAbort: () => void;
}

export class Admission {
  #freeThreads: number;
  readonly #maxQueue: number;
  readonly #running = new Map<string, number>();
  #queue: Waiter[] = [];

  constructor(options: { threads: number; maxQueue: number }) {
    this.#freeThreads = options.threads;
    this.#maxQueue = options.maxQueue;
  }

  get queued(): number {
    return this.#queue.length;
  }

  get freeThreads(): number {
    return this.#freeThreads;
  }

  /**
   * The fast path: a release function when the call may start right now, else undefined (and the
   * caller queues with `acquire`). Starting synchronously spares the common case a promise hop and
   * the AbortController a queued wait needs.
   */
  tryAcquire(tool: RegisteredTool, needsThread: boolean): Release | undefined {
    return this.#canStart(tool, needsThread) ? this.#take(tool, needsThread) : undefined;
  }

  /**
   * Resolves with a release function once the call may start; rejects with OverloadedError when the
   * queue is full, or with the signal's reason when it aborts while waiting.
   */
  acquire(tool: RegisteredTool, needsThread: boolean, signal: AbortSignal): Promise<Release> {
    if (this.#canStart(tool, needsThread)) return Promise.resolve(this.#take(tool, needsThread));
    if (this.#queue.length >= this.#maxQueue) {
      return Promise.reject(
        new OverloadedError(
          `Server overloaded: ${this.#queue.length} calls are already waiting (maxQueue). Retry later.`,
        ),
      );
    }
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = {
        tool,
        needsThread,
        resolve,
        reject,
        signal,
        onAbort: () => {
          this.#queue = this.#queue.filter((w) => w !== waiter);
          reject(signal.reason);
        },
      };
      signal.addEventListener('abort', waiter.onAbort, { once: true });
      this.#queue.push(waiter);
    });
  }

  #canStart(tool: RegisteredTool, needsThread: boolean): boolean {
    if (needsThread && this.#freeThreads === 0) return false;
    return (
      tool.concurrency === Number.POSITIVE_INFINITY || (this.#running.get(tool.name) ?? 0) < tool.concurrency
    );
  }

  #take(tool: RegisteredTool, needsThread: boolean): Release {
    if (needsThread) this.#freeThreads--;
    const limited = tool.concurrency !== Number.POSITIVE_INFINITY;
    if (limited) this.#running.set(tool.name, (this.#running.get(tool.name) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (needsThread) this.#freeThreads++;
      if (limited) {
        const left = (this.#running.get(tool.name) ?? 1) - 1;
        if (left === 0) this.#running.delete(tool.name);
        else this.#running.set(tool.name, left);
      }
      this.#drain();
    };
  }

  #drain(): void {
    for (let i = 0; i < this.#queue.length; ) {
      const waiter = this.#queue[i]!;
      if (this.#canStart(waiter.tool, waiter.needsThread)) {
        this.#queue.splice(i, 1);
        waiter.signal.removeEventListener('abort', waiter.onAbort);
        waiter.resolve(this.#take(waiter.tool, waiter.needsThread));
      } else {
        i++;
      }
    }
  }
}
