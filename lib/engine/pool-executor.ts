/**
 * Runs blocking tools in Piscina worker threads, and really stops them.
 *
 * Stopping a call has three steps. First the outcome is decided and answered at once (timeout or
 * cancelled), so the client never waits for a thread to die. Then the call's shared cancel flag is
 * raised: a cooperative handler sees it through `ctx.checkpoint()` or `ctx.signal` and returns.
 * After a short grace, the Piscina task is aborted, which terminates the thread: the only way to stop
 * a loop that never looks at its flag. The thread slot is handed back only once the terminated
 * thread has exited, so dying threads never let more work run than there are slots.
 *
 * weft does its own admission (see admission.ts), so Piscina's queue stays empty and a thread is
 * always ready for a call that was admitted. What a running call's thread sends besides its result
 * (progress, logs, requests to the client) is routed by call-event-sinks.ts.
 */
import type { Worker } from 'node:worker_threads';
import type { Piscina } from 'piscina';
import type { RegisteredBlockingTool } from '../tools/registered-tool.js';
import { abandonCode, FLAG_SLOTS } from './abandon-reason.js';
import type { Admission, Release } from './admission.js';
import { CallEventSinks, type EventSink } from './call-event-sinks.js';
import { callMark, nextCallId } from './call-mark.js';
import { budgetLeftMs } from './deadline.js';
import type { EngineCall } from './engine-call.js';
import type { LostSlots } from './lost-slots.js';
import type { NativeFound } from './native-verdicts.js';
import type { Outcome } from './outcome.js';
import { decideWorkerDied, resultOutcome, runPooledCall } from './pooled-call.js';
import { keepKillingCallProcesses } from './process-tree.js';
import { TaskAbortHandle } from './task-abort-handle.js';
import { CallLife, claimForTermination, terminateWhenSafe } from './thread-life.js';
import { createThreadPool, nativeIdle, type ThreadPool, threadPoolKey } from './thread-pool.js';
import type { PoolTask, PoolTaskResult } from './worker-protocol.js';

export interface PoolExecutorOptions {
  /** Thread slots shared by every blocking tool. */
  maxThreads: number;
  /** How long a cooperative handler gets to stop after its flag is raised, before termination. */
  graceMs: number;
  /**
   * Added to the nice value of every pool thread (Linux keeps one per thread). CPU-bound tools then
   * yield the cores to the main thread whenever it has work, which is what keeps the router
   * answering in milliseconds while every worker is busy.
   */
  niceIncrement: number;
  /** Where worker deaths are reported in full (the client only sees a redacted message). */
  logError: (message: string) => void;
  /** Told of slots held by threads that were stopped and have not exited (lost-slots.ts). */
  lostSlots?: LostSlots;
}

interface RunningTask {
  /** The tool's name, for the log when its slot is lost. */
  readonly tool: string;
  readonly pool: Piscina;
  /** What marks the processes its handler starts (call-mark.ts). */
  readonly mark: string;
  readonly flag: Int32Array;
  readonly abort: TaskAbortHandle;
  /** Gives back the thread slot and the flag's slot together: both are free from the same moment. */
  readonly release: Release;
  graceTimer?: NodeJS.Timeout;
  /** Its termination is decided (it may be held while the thread loads). */
  terminating: boolean;
  /** Its thread was terminated: the slot comes back when that thread has exited. */
  terminated: boolean;
  /** Its result or its failure arrived: a termination still held for its load is dropped. */
  settled: boolean;
  /** Its slot was counted lost: this says it is back (called with the release). */
  found?: () => void;
  /** Where the call was on its thread when its slot was given back (thread-life.ts's CallLife). */
  lifeAtRelease?: number;
}

export class PoolExecutor {
  readonly #admission: Admission;
  readonly #options: PoolExecutorOptions;
  /** Pools by heap caps and environment; tools with the same ones share threads. */
  readonly #pools = new Map<string, ThreadPool>();
  /** Each tool's pool, found once. */
  readonly #poolsByTool = new WeakMap<RegisteredBlockingTool, ThreadPool>();
  readonly #sinks = new CallEventSinks();
  /** Calls posted a second time because their first thread died before their handler started. */
  readonly #reposted = new WeakSet<EngineCall>();
  /** Tasks waiting for the end of this turn of the event loop (see #postSoon). */
  #toPost: Array<() => void> = [];
  #closed = false;

  constructor(admission: Admission, options: PoolExecutorOptions) {
    this.#admission = admission;
    this.#options = options;
  }

  /** Starts the default pool's threads now; settles once they have loaded (thread-pool.ts). */
  warmUp(): Promise<void> {
    return this.#poolFor(undefined, undefined).started;
  }

  /**
   * `waitsForNative`: the tool loads native code and is pinned to threads; its thread is never
   * terminated (native work may still call back into it), an abandoned call is waited for instead.
   * Otherwise the thread refuses native code, and `onNative` hears of a module that wanted some
   * (its handler did not run): it returns the outcome of the call placed again, if not decided.
   */
  run(
    call: EngineCall & { tool: RegisteredBlockingTool },
    waitsForNative = false,
    onNative?: NativeFound,
  ): Promise<Outcome> {
    const callId = nextCallId();
    const begunAt = performance.now();
    /** Aborts once the outcome is decided: requests the handler made to the client are withdrawn. */
    let callOver: AbortController | undefined;
    let sink: EventSink | undefined;
    return runPooledCall(this.#admission, call, {
      // A slot granted after close() is handed back: a task posted then would make a new thread.
      isClosed: () => this.#closed,
      onDecided: (outcome) => {
        if (sink) this.#sinks.remove(sink);
        callOver?.abort(outcome.kind);
      },
      start: (release, decision, waited) => {
        const startedAt = Date.now();
        const pool = this.#poolOf(call.tool, waitsForNative);
        const slot = pool.flags.lease();
        pool.running++;
        const message: PoolTask = {
          callId,
          toolName: call.tool.handlerName,
          moduleUrl: call.tool.moduleUrl,
          exportName: call.tool.exportName,
          args: call.args,
          flagSlot: slot,
          deadline: call.budgetMs > 0 ? Date.now() + call.budgetMs : undefined,
          wantsProgress: call.events.progress !== undefined,
          minLogLevel: call.events.minLogLevel,
          clientCapabilities: call.peer?.clientCapabilities,
          ...(waitsForNative ? { nativeAllowed: true } : {}),
          ...(call.tool.checkOutput === undefined ? { stringIsText: true } : {}),
          ...(call.inputs ? { inputs: call.inputs } : {}),
          ...(call.auth ? { auth: call.auth } : {}),
        };
        const trace = call.watch?.carrier();
        if (trace !== undefined) message.trace = trace;
        // The thread is free the moment Piscina is done with the task: see #settled.
        const abort = new TaskAbortHandle(() => this.#settled(task));
        let released = false;
        const task: RunningTask = {
          tool: call.tool.name,
          pool: pool.piscina,
          mark: callMark(process.pid, callId),
          flag: pool.flags.flag(slot),
          abort,
          release: () => {
            if (released) return;
            released = true;
            task.lifeAtRelease = Atomics.load(task.flag, FLAG_SLOTS.life);
            pool.running--;
            task.found?.();
            pool.flags.giveBack(slot);
            release();
          },
          terminating: false,
          terminated: false,
          settled: false,
        };
        const callSink: EventSink = {
          callId,
          events: call.events,
          received: 0,
          peer: call.peer,
          overSignal: () => {
            callOver ??= new AbortController();
            return callOver.signal;
          },
        };
        sink = callSink;
        this.#sinks.add(callSink);
        const onResult = (result: PoolTaskResult) => {
          task.settled = true;
          clearTimeout(task.graceTimer);
          if (result.telemetry) call.watch?.ranOn(result.telemetry.worker, result.telemetry.spans);
          task.release();
          if (result.nativeRefused !== undefined) {
            const moved = onNative?.(call, result.nativeRefused, Date.now() - startedAt, decision.decided);
            if (moved) void moved.then((outcome) => decision.decide(outcome));
            return;
          }
          // A result that arrives after a deadline or cancel finds the outcome decided: dropped.
          const finish = () => decision.decide(resultOutcome(result));
          if (decision.decided || callSink.received >= result.events) finish();
          else this.#sinks.awaitEvents(callSink, result.events, finish);
        };
        const onFailure = (error: unknown) => {
          task.settled = true;
          clearTimeout(task.graceTimer);
          if (task.terminated) return; // the slot comes back when the thread has exited
          task.release();
          // A thread torn down after the outcome was decided, or by close(), is no news.
          if (decision.decided || this.#closed) return;
          // A thread that died before the handler started (while starting, or loading the tool's
          // module) ran none of the call: it is posted once more, on a fresh thread, with what is
          // left of its budget. A second death is the call's own.
          if ((task.lifeAtRelease ?? CallLife.NotStarted) <= CallLife.Loading && !this.#reposted.has(call)) {
            this.#options.logError(
              `weft: the thread given a call of tool "${call.tool.name}" ended before its handler started; the call is posted again: ${(error as Error)?.stack ?? String(error)}`,
            );
            const again = { ...call, budgetMs: budgetLeftMs(call.budgetMs, begunAt) };
            this.#reposted.add(again);
            void this.run(again, waitsForNative, onNative).then((outcome) => decision.decide(outcome));
            return;
          }
          decideWorkerDied(
            decision,
            this.#options.logError,
            `the worker running tool "${call.tool.name}"`,
            error,
          );
        };
        // A call abandoned before its post is still posted: Piscina refuses a task whose signal
        // has aborted, at once and without touching a thread, and onFailure sees it terminated.
        const post = () => pool.piscina.run(message, { signal: abort }).then(onResult, onFailure);
        // A call that waited for its slot is granted it while the previous call's result is being
        // handled, and that call's thread has just gone idle: it is posted now. Deferring it to the
        // end of the turn left the thread idle through the rest of the turn, which under pipelined
        // load holds every request read in it (see #postSoon for the calls that did not wait).
        if (waited) post();
        else this.#postSoon(post);
        return {
          abandon: (reason) => {
            // Its thread is done with it and its flag may already be another call's: nothing to stop.
            if (task.settled) return;
            Atomics.store(task.flag, FLAG_SLOTS.reason, abandonCode(reason));
            Atomics.notify(task.flag, FLAG_SLOTS.reason);
            // Native work in this thread: never terminated; past the grace its slot counts lost.
            if (waitsForNative) {
              task.graceTimer = setTimeout(() => {
                if (!task.settled) task.found = this.#options.lostSlots?.lose(call.tool.name, 'waiting');
              }, this.#options.graceMs);
              return;
            }
            // A handler that never looked at its flag will not stop by itself: no grace to wait out.
            if (Atomics.load(task.flag, FLAG_SLOTS.watching) === 0) this.#terminate(task);
            else task.graceTimer = setTimeout(() => this.#terminate(task), this.#options.graceMs);
          },
        };
      },
    });
  }

  /**
   * Posts tasks at the end of this turn of the event loop, all together, rather than each the moment
   * its call starts. A pool thread woken while the main thread still has the rest of the turn to
   * run (the request's promise chain, more requests read in the same turn) cost about 40 µs more
   * per call on the benchmark VM than one woken just before the main thread goes back to wait:
   * dispatch-overhead measured 0.067-0.086 ms against 0.087-0.120 ms in five of six alternating
   * runs. In steady state the extra turn costs a few µs. Posting from a microtask instead measured
   * worse (0.14-0.27 ms in three runs alternating with these). The price: a task waits for the rest
   * of its turn, so an inline handler that blocks the event loop in that turn (which no inline
   * handler should) delays it.
   */
  #postSoon(post: () => void): void {
    this.#toPost.push(post);
    if (this.#toPost.length === 1) setImmediate(this.#postAll);
  }

  readonly #postAll = (): void => {
    const posts = this.#toPost;
    this.#toPost = [];
    for (const post of posts) post();
  };

  /**
   * Stops every pool; running threads are terminated, once none is loading modules (bounded: see
   * thread-life.ts).
   */
  async close(): Promise<void> {
    this.#closed = true;
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(
      pools.map(async (pool) => {
        await nativeIdle(pool);
        await pool.life.closing(pool.flags.leased());
        await pool.piscina.destroy();
      }),
    );
  }

  /**
   * Resolves once no call of a native tool pinned to threads runs: ending the process (or a thread)
   * under it would let its native work call back into a dead thread. The number of calls it waits
   * for is given to `waiting` first, when there are any.
   */
  async nativeIdle(waiting: (calls: number) => void): Promise<void> {
    const native = [...this.#pools.values()].filter((pool) => pool.native && pool.running > 0);
    if (native.length === 0) return;
    waiting(native.reduce((sum, pool) => sum + pool.running, 0));
    await Promise.all(native.map(nativeIdle));
  }

  /** Threads currently alive across all pools (idle, busy or dying), for tests and diagnostics. */
  get threadCount(): number {
    let count = 0;
    for (const pool of this.#pools.values()) count += pool.piscina.threads.length;
    return count;
  }

  /**
   * Piscina is done with the task (its result or failure is in; the promise settles a microtask
   * later): its slot is given back now, so a call waiting for one is posted to the thread that has
   * just gone idle, from inside Piscina's result handler. Piscina then looks, before it returns, for
   * results the other threads have posted meanwhile and hands them over in the same turn; released
   * a microtask later, the next task went out after that look, so under load each result cost a
   * turn of the event loop of its own (an epoll wake, a read, a write of the replies). A terminated
   * thread's slot still waits for the thread's exit (#terminateNow).
   */
  #settled(task: RunningTask): void {
    if (task.terminated) return;
    task.settled = true;
    clearTimeout(task.graceTimer);
    task.release();
  }

  /** Terminates the task's thread, once it is not loading modules (thread-life.ts). */
  #terminate(task: RunningTask): void {
    if (task.terminating) return;
    task.terminating = true;
    terminateWhenSafe(
      task.flag,
      () => task.settled,
      () => this.#terminateNow(task),
    );
  }

  /**
   * A thread whose handler still runs is terminated here, not through Piscina's abort: Piscina then
   * replaces it when it has exited (in its exit handler), not at once. A replacement started beside
   * a dying thread overlaps it, and an overlap can make glibc open another malloc arena, which the
   * process keeps (up to 8 per core) with what the churning threads freed in it; started after the
   * exit, the replacement takes the arena the dead thread left free (benchmarks/PERFORMANCE.md, "Soak
   * and memory per unit"), and a pool never has more threads than `maxThreads`. The claim
   * (thread-life.ts) keeps the handler's end from handing Piscina a result, which would let Piscina
   * give the dying thread another call. A call whose handler is not running (its thread still
   * loading its entry, or done and its result on the way) goes through Piscina as before.
   */
  #terminateNow(task: RunningTask): void {
    task.terminated = true;
    // Lost until the thread exits: at once for readiness, in the log if it lasts (lost-slots.ts).
    task.found = this.#options.lostSlots?.lose(task.tool, 'terminated');
    const id = claimForTermination(task.flag);
    const claimed = id === undefined ? undefined : task.pool.threads.find((thread) => thread.threadId === id);
    const dying = claimed ? [claimed] : abortThroughPiscina(task);
    if (claimed) void claimed.terminate();
    // A handler blocked on a child (execSync) lets its thread exit only once that child is gone; the
    // slot comes back once every thread that ran the call has exited, and all it started is gone.
    const stopKilling = keepKillingCallProcesses(task.mark);
    const release = () => {
      stopKilling();
      task.release();
    };
    let alive = dying.length;
    if (alive === 0) release();
    for (const thread of dying) {
      thread.once('exit', () => {
        if (--alive === 0) release();
      });
    }
  }

  /** `native`: the threads of tools pinned to threads that load native code, kept apart from the rest. */
  #poolOf(tool: RegisteredBlockingTool, native: boolean): ThreadPool {
    if (native) return this.#poolFor(tool.resourceLimits, tool.env, true);
    let pool = this.#poolsByTool.get(tool);
    if (!pool) {
      pool = this.#poolFor(tool.resourceLimits, tool.env);
      this.#poolsByTool.set(tool, pool);
    }
    return pool;
  }

  #poolFor(
    limits: RegisteredBlockingTool['resourceLimits'],
    env: RegisteredBlockingTool['env'],
    native = false,
  ): ThreadPool {
    const key = threadPoolKey(limits, env, native);
    const existing = this.#pools.get(key);
    if (existing) return existing;
    const pool = createThreadPool(this.#options, { limits, env, native, isDefault: key === '|' });
    pool.piscina.on('message', (message: unknown) => this.#sinks.route(message));
    this.#pools.set(key, pool);
    return pool;
  }
}

/** Aborts the task in Piscina, which terminates its thread at once: the threads it removed. */
function abortThroughPiscina(task: RunningTask): Worker[] {
  const before = new Set<Worker>(task.pool.threads);
  task.abort.abort(); // Piscina rejects the task and terminates its thread synchronously
  const after = new Set<Worker>(task.pool.threads);
  return [...before].filter((thread) => !after.has(thread));
}
