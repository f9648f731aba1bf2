/**
 * Admission control: who may start now, who waits, and who is refused.
 *
 * Two kinds of capacity gate a call: the pool's thread slots (blocking tools only) and each tool's
 * own `concurrency`. Calls that cannot start wait in a bounded queue: past `maxQueue` (or past a
 * caller's own `queued` limit) a call is refused at once instead of growing memory without bound.
 * When a slot frees, the waiting caller that has used the least pool time lately goes next, by its
 * weight (fair-queue.ts); within one caller, first come, first served. With fairness off every call
 * is the same caller, and the queue is plain first come, first served.
 * A thread slot is given back only when its thread is really free, which for a terminated thread
 * means after it has exited: a slot whose thread is still dying is not a free slot.
 */
import type { RegisteredTool } from '../tools/registered-tool.js';
import {
  ANONYMOUS,
  type Caller,
  type CallerHolding,
  FairQueue,
  type KeyState,
  type Lane,
} from './fair-queue.js';
import { type LimitExceeded, limitMessage } from './limit-exceeded.js';

export type Release = () => void;

export class OverloadedError extends Error {
  override readonly name = 'OverloadedError';

  /** Set when the refusal is a caller's own limit rather than the server's queue. */
  constructor(
    message: string,
    readonly limit?: LimitExceeded,
  ) {
    super(message);
  }
}

interface Waiter {
  tool: RegisteredTool;
  needsThread: boolean;
  owner: KeyState;
  granted: (release: Release) => void;
}

/** A call's place in the queue; `withdraw` takes it out (false when it was granted or withdrawn). */
export interface QueuedWait {
  withdraw(): boolean;
}

export interface AdmissionOptions {
  threads: number;
  maxQueue: number;
  /** Share slots fairly between callers (default true); false: first come, first served. */
  fairness?: boolean;
  /** Idle caller keys are forgotten after this long (ms; fair-queue.ts's default otherwise). */
  idleKeyMs?: number;
  /** The most caller keys remembered at once (fair-queue.ts's default otherwise). */
  maxKeys?: number;
  /** Calls one caller may have waiting, server-wide (limits.perCaller.queued; absent: no own limit). */
  perCallerQueued?: number;
  /** The clock pool time is measured on, in ms (tests pass a fake one). */
  now?: () => number;
  /** Told whenever a call gives back its slot, with how long it held it (for poolMsPerMinute). */
  onHeld?: (caller: Caller, tool: RegisteredTool, heldMs: number) => void;
}

export class Admission {
  #freeThreads: number;
  readonly #maxQueue: number;
  readonly #fair: boolean;
  readonly #perCallerQueued: number;
  readonly #now: () => number;
  readonly #onHeld: AdmissionOptions['onHeld'];
  readonly #running = new Map<string, number>();
  readonly #queue: FairQueue<Waiter>;

  constructor(options: AdmissionOptions) {
    this.#freeThreads = options.threads;
    this.#maxQueue = options.maxQueue;
    this.#fair = options.fairness ?? true;
    this.#queue = new FairQueue<Waiter>({
      fair: this.#fair,
      ...(options.idleKeyMs === undefined ? {} : { idleKeyMs: options.idleKeyMs }),
      ...(options.maxKeys === undefined ? {} : { maxKeys: options.maxKeys }),
    });
    this.#perCallerQueued = options.perCallerQueued ?? Number.POSITIVE_INFINITY;
    this.#now = options.now ?? performance.now.bind(performance);
    this.#onHeld = options.onHeld;
  }

  get queued(): number {
    return this.#queue.size;
  }

  get freeThreads(): number {
    return this.#freeThreads;
  }

  /** Whether slots are shared fairly between callers (the `fairness` option). */
  get fair(): boolean {
    return this.#fair;
  }

  /** How many caller keys the fair queue remembers now. */
  get keyCount(): number {
    return this.#queue.keyCount;
  }

  /** What each caller key holds and waits for now. */
  holdings(): CallerHolding[] {
    return this.#queue.holdings();
  }

  /**
   * The fast path: a release function when the call may start right now, else undefined (and the
   * caller queues with `enqueue`). Starting synchronously spares the common case a promise hop and
   * the AbortController a queued wait needs. A call that can start passes no one: every release
   * grants whatever waiting call could use the slot before returning.
   */
  tryAcquire(tool: RegisteredTool, needsThread: boolean, caller: Caller = ANONYMOUS): Release | undefined {
    if (!this.#canStart(tool, needsThread)) return undefined;
    return this.#take(tool, needsThread, this.#queue.keyOf(caller));
  }

  /**
   * Queues a call that could not start: `granted` runs with its release function once it may. An
   * OverloadedError is returned, not thrown, when the queue (or the caller's share of it) is full.
   * Withdrawing is a plain method rather than an AbortSignal: under pipelined load most blocking
   * calls queue here, and a signal with its listener cost about a tenth of the main thread's time
   * per call in the profiles.
   */
  enqueue(
    tool: RegisteredTool,
    needsThread: boolean,
    granted: (release: Release) => void,
    caller: Caller = ANONYMOUS,
  ): QueuedWait | OverloadedError {
    if (this.#queue.size >= this.#maxQueue) {
      return new OverloadedError(
        `Server overloaded: ${this.#queue.size} calls are already waiting (maxQueue). Retry later.`,
      );
    }
    const owner = this.#queue.keyOf(caller);
    const refused = this.#overOwnQueue(tool, needsThread, owner);
    if (refused) return refused;
    const waiter: Waiter = { tool, needsThread, owner, granted };
    const lane = this.#queue.push(owner, tool.name, needsThread, waiter);
    return { withdraw: () => this.#queue.withdraw(lane, waiter) };
  }

  /**
   * Resolves with a release function once the call may start; rejects with OverloadedError when the
   * queue is full, or with the signal's reason when it aborts while waiting.
   */
  acquire(
    tool: RegisteredTool,
    needsThread: boolean,
    signal: AbortSignal,
    caller: Caller = ANONYMOUS,
  ): Promise<Release> {
    const free = this.tryAcquire(tool, needsThread, caller);
    if (free) return Promise.resolve(free);
    return new Promise<Release>((resolve, reject) => {
      let wait: QueuedWait | undefined;
      const onAbort = () => {
        if (wait?.withdraw()) reject(signal.reason);
      };
      const queued = this.enqueue(
        tool,
        needsThread,
        (release) => {
          signal.removeEventListener('abort', onAbort);
          resolve(release);
        },
        caller,
      );
      if (queued instanceof OverloadedError) {
        reject(queued);
        return;
      }
      wait = queued;
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** The caller's own `queued` limits, server-wide and the tool's (its waiting calls of that tool). */
  #overOwnQueue(tool: RegisteredTool, needsThread: boolean, owner: KeyState): OverloadedError | undefined {
    const toolLimit = tool.limits?.perCaller?.queued;
    let limit: LimitExceeded | undefined;
    const retryAfterMs = Math.max(1, Math.ceil(owner.meanMs));
    if (owner.waiting >= this.#perCallerQueued) {
      limit = { limit: 'queued', scope: 'server', max: this.#perCallerQueued, retryAfterMs };
    } else if (toolLimit !== undefined) {
      const waitingOfTool = this.#queue.waitingIn(owner, tool.name, needsThread);
      if (waitingOfTool >= toolLimit)
        limit = { limit: 'queued', scope: 'tool', max: toolLimit, retryAfterMs };
    }
    return limit && new OverloadedError(limitMessage(limit, tool.name), limit);
  }

  #canStart(tool: RegisteredTool, needsThread: boolean): boolean {
    if (needsThread && this.#freeThreads === 0) return false;
    return !this.#toolFull(tool);
  }

  #toolFull(tool: RegisteredTool): boolean {
    return (
      tool.concurrency !== Number.POSITIVE_INFINITY && (this.#running.get(tool.name) ?? 0) >= tool.concurrency
    );
  }

  #take(tool: RegisteredTool, needsThread: boolean, owner: KeyState): Release {
    if (needsThread) this.#freeThreads--;
    const limited = tool.concurrency !== Number.POSITIVE_INFINITY;
    if (limited) this.#running.set(tool.name, (this.#running.get(tool.name) ?? 0) + 1);
    const chargedMs = this.#queue.charge(owner);
    const grantedAt = this.#now();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const heldMs = Math.max(0, this.#now() - grantedAt);
      this.#queue.settle(owner, chargedMs, heldMs);
      this.#onHeld?.({ key: owner.key, weight: owner.weight }, tool, heldMs);
      if (needsThread) this.#freeThreads++;
      if (limited) {
        const left = (this.#running.get(tool.name) ?? 1) - 1;
        if (left === 0) this.#running.delete(tool.name);
        else this.#running.set(tool.name, left);
        if (left === tool.concurrency - 1) this.#queue.unpark(tool.name);
      }
      this.#drain();
    };
  }

  /**
   * Grants slots while a waiting call can use one: the fair queue's next lane (thread lanes only
   * while a thread is free); a lane whose tool is at its own concurrency is parked until the tool
   * has room, so nothing is looked at twice.
   */
  #drain(): void {
    for (;;) {
      const lane: Lane<Waiter> | undefined = this.#queue.peek(this.#freeThreads > 0);
      if (!lane) return;
      const head = lane.first;
      if (this.#toolFull(head.tool)) {
        this.#queue.park(lane, head.tool.name);
        continue;
      }
      const waiter = this.#queue.shift(lane);
      waiter.granted(this.#take(waiter.tool, waiter.needsThread, waiter.owner));
    }
  }
}
