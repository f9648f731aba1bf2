/**
 * When a pool thread may be terminated: never while it is loading modules.
 *
 * Node can end the whole process, not just the thread, when a worker is terminated while it
 * instantiates ES modules for a require() ("FATAL ERROR: v8::Module::IsGraphAsync must be used on an
 * instantiated module", SIGABRT; see docs/failure-semantics.md and
 * scripts/node-terminate-during-require-esm.mjs). Threads therefore load their entry and every tool
 * module through import() (workers/pool-thread-entry.cts), and on top of that the main thread holds
 * the termination of a thread that is still loading until its load has ended, then terminates it
 * at once. The hold is bounded (LOAD_HOLD_MS): a module whose import never ends is terminated anyway,
 * and an import that waits (top-level await) is not instantiating, so that is safe.
 *
 * A thread's life: spawning, loading its entry, idle, then per call loading the tool's module,
 * running, in grace, exiting. What the main thread can see, without a message round trip:
 * - per call, in the call's cancel flag (FLAG_SLOTS.life): not started, loading, running, finished,
 *   or terminating (claimed by the main thread, which terminates the thread itself; see
 *   claimForTermination), and in FLAG_SLOTS.thread which thread picked it up;
 * - per pool, in a small shared buffer: how many threads are loading their entry, and whether the
 *   pool is closing.
 * Each load begins with a store of "loading" and then a look at the abandon reason (or the closing
 * flag); each termination begins with a store of the reason (or the flag) and then a look at the
 * life. All four are sequentially consistent Atomics, so either the thread sees it was abandoned and
 * does not start loading, or the main thread sees it loading and waits: never neither.
 */
import { FLAG_SLOTS } from './abandon-reason.js';

/** Where a call's thread is, as written into FLAG_SLOTS.life of the call's flag. */
export const CallLife = {
  /** Posted, not yet picked up: queued, or its thread still loading its entry. */
  NotStarted: 0,
  /** Its thread is loading the tool's module for it. */
  Loading: 1,
  /** Its handler runs: the thread may be terminated at any moment. */
  Running: 2,
  /** Over: a result is on its way. */
  Finished: 3,
  /**
   * The main thread is terminating the thread while its handler runs (it swapped Running for this):
   * should the handler end first, the thread hands Piscina no result and waits to be terminated.
   */
  Terminating: 4,
} as const;

/** Int32 fields of a pool's life buffer. */
const POOL = { entriesLoading: 0, closing: 1 } as const;

/** How long a termination waits for a thread to finish loading before it goes ahead anyway. */
export const LOAD_HOLD_MS = 2_000;

/** The shared part of one pool's thread lives; handed to its threads as workerData. */
export class PoolLife {
  readonly buffer = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
  readonly #view = new Int32Array(this.buffer);

  /**
   * Stops new loads, then waits (bounded) until no thread is loading its entry and no call in
   * `flags` is loading its tool: after that, terminating every thread is safe.
   */
  async closing(flags: readonly Int32Array[], boundMs = LOAD_HOLD_MS): Promise<void> {
    Atomics.store(this.#view, POOL.closing, 1);
    const until = Date.now() + boundMs;
    while (Date.now() < until && this.#loading(flags)) {
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }

  #loading(flags: readonly Int32Array[]): boolean {
    if (Atomics.load(this.#view, POOL.entriesLoading) > 0) return true;
    return flags.some((flag) => Atomics.load(flag, FLAG_SLOTS.life) === CallLife.Loading);
  }
}

/**
 * Calls `terminate` as soon as the thread running the call whose flag this is may be terminated:
 * at once if its handler runs or it is over, after its load otherwise, and after `LOAD_HOLD_MS` at
 * the latest. `over()` says the call's result arrived meanwhile (its flag may then already belong
 * to another call): nothing is terminated. The abandon reason must be stored in the flag first.
 */
export function terminateWhenSafe(flag: Int32Array, over: () => boolean, terminate: () => void): void {
  if (!isLoading(flag)) {
    terminate();
    return;
  }
  const until = Date.now() + LOAD_HOLD_MS;
  const check = () => {
    if (over()) return;
    if (!isLoading(flag) || Date.now() >= until) terminate();
    else setTimeout(check, 2);
  };
  setTimeout(check, 2);
}

/**
 * The main thread's claim to terminate the call's thread itself: the id of that thread if its
 * handler still runs, undefined otherwise (it has not started, or it is over). From then on the thread never hands Piscina a result for the call, so
 * Piscina never takes the thread for free again before it exits. One compare-and-swap decides the
 * race with the handler's end (`endCall`): the thread either sees the claim or finished first.
 */
export function claimForTermination(flag: Int32Array): number | undefined {
  const life = Atomics.compareExchange(flag, FLAG_SLOTS.life, CallLife.Running, CallLife.Terminating);
  return life === CallLife.Running ? Atomics.load(flag, FLAG_SLOTS.thread) : undefined;
}

/** Not started counts as loading: the call may sit on a thread that is still loading its entry. */
function isLoading(flag: Int32Array): boolean {
  const life = Atomics.load(flag, FLAG_SLOTS.life);
  return life === CallLife.NotStarted || life === CallLife.Loading;
}

// The thread's side.

/**
 * A thread is about to load its entry: true if it may, false if its pool is closing (it then
 * loads nothing and waits to be terminated). A true must be followed by `entryLoaded`.
 */
export function beginEntryLoad(buffer: SharedArrayBuffer): boolean {
  const view = new Int32Array(buffer);
  Atomics.add(view, POOL.entriesLoading, 1);
  if (Atomics.load(view, POOL.closing) === 0) return true;
  Atomics.sub(view, POOL.entriesLoading, 1);
  return false;
}

export function entryLoaded(buffer: SharedArrayBuffer): void {
  Atomics.sub(new Int32Array(buffer), POOL.entriesLoading, 1);
}

/**
 * A call's thread is about to load (or look up) its tool's module: true if it may, false if the
 * call was abandoned or the pool is closing, in which case the call ends without running.
 */
export function beginCallLoad(flag: Int32Array, pool: SharedArrayBuffer, threadId: number): boolean {
  // Stored before the life: a main thread that sees the call loading or running knows its thread.
  Atomics.store(flag, FLAG_SLOTS.thread, threadId);
  Atomics.store(flag, FLAG_SLOTS.life, CallLife.Loading);
  return (
    Atomics.load(flag, FLAG_SLOTS.reason) === 0 && Atomics.load(new Int32Array(pool), POOL.closing) === 0
  );
}

/** The call's handler is about to run: from now on its thread may be terminated at any moment. */
export function setCallLife(flag: Int32Array, life: number): void {
  Atomics.store(flag, FLAG_SLOTS.life, life);
}

/**
 * The call is over on its thread. If the main thread has claimed the thread for termination
 * (`claimForTermination`), this never returns: the thread waits, blocked, for the termination that
 * is on its way (termination interrupts `Atomics.wait`), so that no result reaches Piscina.
 */
export function endCall(flag: Int32Array): void {
  const life = Atomics.compareExchange(flag, FLAG_SLOTS.life, CallLife.Running, CallLife.Finished);
  if (life === CallLife.Terminating) {
    for (;;) Atomics.wait(flag, FLAG_SLOTS.life, CallLife.Terminating);
  }
  if (life !== CallLife.Running) Atomics.store(flag, FLAG_SLOTS.life, CallLife.Finished);
}
