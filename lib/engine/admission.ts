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
  granted: (release: Release) => void;
}

/** A call's place in the queue; `withdraw` takes it out (false when it was granted or withdrawn). */
export interface QueuedWait {
  withdraw(): boolean;
}

export class Admission {
  #freeThreads: number;
  readonly #maxQueue: number;
  readonly #running = new Map<string, number>();
  #queue: Waiter[] = [];
  /**
   * Queued calls that need no thread (inline tools held back only by their own `concurrency`). While
   * there are none and no thread is free, nothing in the queue can start, and a release need not
   * look at it: under pipelined load the queue holds every call in flight but two, and scanning it
   * on every release made each call's cost grow with the queue's length.
   */
  #queuedWithoutThread = 0;

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
   * Queues a call that could not start: `granted` runs with its release function once it may. An
   * OverloadedError is returned, not thrown, when the queue is full. Withdrawing is a plain method
   * rather than an AbortSignal: under pipelined load most blocking calls queue here, and a signal
   * with its listener cost about a tenth of the main thread's time per call in the profiles.
   */
  enqueue(
    tool: RegisteredTool,
    needsThread: boolean,
    granted: (release: Release) => void,
  ): QueuedWait | OverloadedError {
    if (this.#queue.length >= this.#maxQueue) {
      return new OverloadedError(
        `Server overloaded: ${this.#queue.length} calls are already waiting (maxQueue). Retry later.`,
      );
    }
    const waiter: Waiter = { tool, needsThread, granted };
    this.#queue.push(waiter);
    if (!needsThread) this.#queuedWithoutThread++;
    return {
      withdraw: () => {
        const index = this.#queue.indexOf(waiter);
        if (index < 0) return false;
        this.#removeAt(index);
        return true;
      },
    };
  }

  /**
   * Resolves with a release function once the call may start; rejects with OverloadedError when the
   * queue is full, or with the signal's reason when it aborts while waiting.
   */
  acquire(tool: RegisteredTool, needsThread: boolean, signal: AbortSignal): Promise<Release> {
    const free = this.tryAcquire(tool, needsThread);
    if (free) return Promise.resolve(free);
    return new Promise<Release>((resolve, reject) => {
      let wait: QueuedWait | undefined;
      const onAbort = () => {
        if (wait?.withdraw()) reject(signal.reason);
      };
      const queued = this.enqueue(tool, needsThread, (release) => {
        signal.removeEventListener('abort', onAbort);
        resolve(release);
      });
      if (queued instanceof OverloadedError) {
        reject(queued);
        return;
      }
      wait = queued;
      signal.addEventListener('abort', onAbort, { once: true });
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
      if (this.#freeThreads === 0 && this.#queuedWithoutThread === 0) return;
      const waiter = this.#queue[i]!;
      if (this.#canStart(waiter.tool, waiter.needsThread)) {
        this.#removeAt(i);
        waiter.granted(this.#take(waiter.tool, waiter.needsThread));
      } else {
        i++;
      }
    }
  }

  /** The head, where grants happen, is taken with shift(), which V8 does without moving the rest. */
  #removeAt(index: number): void {
    const waiter = index === 0 ? this.#queue.shift()! : this.#queue.splice(index, 1)[0]!;
    if (!waiter.needsThread) this.#queuedWithoutThread--;
  }
}
