/**
 * The engine: one entry point that runs a call on the right executor (inline, pool thread, or pool
 * process for `isolation: 'process'`) and returns its Outcome.
 *
 * Inline and blocking tools share one admission control, so `concurrency` and the bounded queue
 * mean the same thing for both. One cap applies to every call whatever runs it: how many calls may
 * be in flight at once (`maxCallsInFlight`). How large a result may be (`maxResultBytes`) is
 * checked where the result is encoded (router/tool-methods), on the text that is sent.
 *
 * A blocking tool placed on the fleet runs on a `weft worker` instead (fleet-executor.ts); its
 * calls are admitted here like any other, and decided with the same outcomes.
 *
 * Where a call runs is decided in one place, `#whereRuns`, from the tool's options and, for a
 * blocking tool that did not choose its isolation, whether its module loads native code
 * (native-verdicts.ts): such a tool runs in a process, where a deadline can stop it safely.
 */

import type { PerCallerLimits } from '../tools/per-caller-limits.js';
import type {
  RegisteredBlockingTool,
  RegisteredInlineTool,
  RegisteredTool,
} from '../tools/registered-tool.js';
import type { Placement } from '../tools/tool-definition.js';
import { Admission } from './admission.js';
import type { CallObserver, ExecutorKind } from './call-observer.js';
import { LocalCallerCounts } from './caller-counts.js';
import { type CallerEntry, CallerLimits } from './caller-limits.js';
import type { EngineCall } from './engine-call.js';
import { ANONYMOUS, type CallerHolding } from './fair-queue.js';
import { FleetExecutor } from './fleet-executor.js';
import type { FleetOptions } from './fleet-options.js';
import { InlineExecutor } from './inline-executor.js';
import { type LimitExceeded, limitMessage } from './limit-exceeded.js';
import { LostSlots } from './lost-slots.js';
import { type NativeFound, NativeVerdicts } from './native-verdicts.js';
import type { Outcome } from './outcome.js';
import { PoolExecutor } from './pool-executor.js';
import { ProcessExecutor } from './process-executor.js';
import { SharedCallerCounts } from './shared-caller-counts.js';

export interface EngineOptions {
  /** Worker threads for blocking tools (default: the machine's available parallelism). */
  maxThreads: number;
  /** Calls that may wait for a slot before new ones are refused as overloaded. */
  maxQueue: number;
  /** How long a cooperative blocking handler gets to stop before its thread is terminated. */
  graceMs: number;
  /** Nice increment of pool threads, so the main thread wins the CPU when it has work. */
  niceIncrement: number;
  /**
   * Tool calls running or waiting at once, inline ones included; past it a call is refused as
   * overloaded. Inline calls wait in no queue, so without this cap a client could park any number
   * of them (about 5 KB each). 0 or absent = no cap.
   */
  maxCallsInFlight?: number;
  /** Where blocking tools placed on the fleet run (`weft worker` processes); absent: none are. */
  fleet?: FleetOptions;
  /**
   * Share slots fairly between callers (`EngineCall.caller`), by pool time and weight (default
   * true); false: first come, first served, whoever calls.
   */
  fairness?: boolean;
  /** What each caller may hold and spend, server-wide (tools add their own `limits`). */
  perCaller?: PerCallerLimits;
  /** Idle caller keys are forgotten after this long, in ms (fair-queue.ts's default otherwise). */
  idleCallerMs?: number;
  /** The most caller keys the scheduler remembers at once (fair-queue.ts's default otherwise). */
  maxCallerKeys?: number;
  /** A Redis: per-caller counts are shared there by every replica; absent: counted here. */
  sharedCounts?: { url: string; keyPrefix?: string };
  /** Told of each call's life (telemetry); absent: nobody is, at the cost of one branch per call. */
  observer?: CallObserver;
  logError: (message: string) => void;
}

export class Engine {
  readonly #admission: Admission;
  readonly #inline: InlineExecutor;
  readonly #pool: PoolExecutor;
  readonly #processes: ProcessExecutor;
  readonly #fleet: FleetExecutor | undefined;
  readonly #maxCallsInFlight: number;
  readonly #limits: CallerLimits;
  readonly #sharedCounts: SharedCallerCounts | undefined;
  readonly #localCounts: LocalCallerCounts | undefined;
  readonly #observer: CallObserver | undefined;
  readonly #verdicts: NativeVerdicts;
  readonly #lostSlots: LostSlots;
  #callsInFlight = 0;

  constructor(options: EngineOptions) {
    this.#sharedCounts =
      options.sharedCounts === undefined
        ? undefined
        : new SharedCallerCounts({ ...options.sharedCounts, logError: options.logError });
    this.#localCounts = this.#sharedCounts ? undefined : new LocalCallerCounts();
    this.#limits = new CallerLimits(options.perCaller, this.#sharedCounts ?? this.#localCounts!);
    this.#admission = new Admission({
      threads: options.maxThreads,
      maxQueue: options.maxQueue,
      fairness: options.fairness ?? true,
      ...(options.idleCallerMs === undefined ? {} : { idleKeyMs: options.idleCallerMs }),
      ...(options.maxCallerKeys === undefined ? {} : { maxKeys: options.maxCallerKeys }),
      ...(options.perCaller?.queued === undefined ? {} : { perCallerQueued: options.perCaller.queued }),
      onHeld: (caller, tool, heldMs) => this.#limits.charge(caller, tool, heldMs),
    });
    this.#inline = new InlineExecutor(this.#admission, (call) => this.#dispatch(call));
    this.#lostSlots = new LostSlots(options.maxThreads, options.logError);
    this.#pool = new PoolExecutor(this.#admission, { ...options, lostSlots: this.#lostSlots });
    // Process-isolated tools share the thread slots: both stand for a core's worth of work.
    this.#processes = new ProcessExecutor(this.#admission, options);
    // Fleet calls count against maxCallsInFlight and their tool's concurrency, not the thread slots.
    this.#fleet = options.fleet
      ? new FleetExecutor(this.#admission, options.fleet, options.logError)
      : undefined;
    this.#maxCallsInFlight = options.maxCallsInFlight ?? 0;
    this.#observer = options.observer;
    this.#verdicts = new NativeVerdicts(options.logError);
  }

  run(call: EngineCall): Promise<Outcome> {
    if (this.#observer !== undefined) return this.#observed(call, this.#observer);
    return this.#unobserved(call);
  }

  #unobserved(call: EngineCall): Promise<Outcome> {
    if (this.#maxCallsInFlight > 0 && this.#callsInFlight >= this.#maxCallsInFlight) {
      return Promise.resolve(this.#overloaded());
    }
    this.#callsInFlight++;
    return this.#enter(call).finally(() => this.#callsInFlight--);
  }

  /** The caller's limits first (when any apply): a call over one is refused before anything runs. */
  #enter(call: EngineCall): Promise<Outcome> {
    if (!this.#limits.applies(call.tool)) return this.#dispatch(call);
    const entered = this.#limits.enter(call.caller ?? ANONYMOUS, call.tool);
    return entered instanceof Promise
      ? entered.then((entry) => this.#entered(call, entry))
      : this.#entered(call, entered);
  }

  #entered(call: EngineCall, entry: CallerEntry | LimitExceeded): Promise<Outcome> {
    if ('limit' in entry) {
      return Promise.resolve({
        kind: 'overloaded',
        reason: limitMessage(entry, call.tool.name),
        limit: entry,
      });
    }
    return this.#dispatch(call).finally(() => entry.leave());
  }

  /** `run`, telling the observer; the executors report the queue and the start through `call.watch`. */
  #observed(call: EngineCall, observer: CallObserver): Promise<Outcome> {
    const watch = observer.begin(call, this.#whereRuns(call.tool));
    if (watch === undefined) return this.#unobserved(call);
    if (this.#maxCallsInFlight > 0 && this.#callsInFlight >= this.#maxCallsInFlight) {
      const outcome = this.#overloaded();
      watch.settled(outcome);
      return Promise.resolve(outcome);
    }
    this.#callsInFlight++;
    // Set on the call itself (each is its own object): a copy with one more key measured slower
    // down the whole call (every executor then sees objects of another shape).
    call.watch = watch;
    return watch
      .within(() => this.#dispatch(call))
      .then(
        (outcome) => {
          this.#callsInFlight--;
          watch.settled(outcome);
          return outcome;
        },
        (error: unknown) => {
          this.#callsInFlight--;
          watch.settled({ kind: 'panicked', detail: String(error) });
          throw error;
        },
      );
  }

  #overloaded(): Outcome {
    return {
      kind: 'overloaded',
      reason: `Server overloaded: ${this.#callsInFlight} calls are already in flight (maxCallsInFlight). Retry later.`,
    };
  }

  /**
   * Where a call of `tool` runs: the one place that decides it. Inline tools on the event loop; a
   * blocking tool on the fleet when placed there, else in a pool process when it asks for one or
   * when its module loads native code and it did not pin 'thread', else in a pool thread (whose
   * first load of the module tells, native-verdicts.ts).
   */
  #whereRuns(tool: RegisteredTool): ExecutorKind {
    if (!tool.blocking) return 'inline';
    if (this.#fleet?.placementOf(tool) === 'fleet') return 'fleet';
    if (tool.isolation === 'process') return 'process';
    if (!this.#verdicts.loadsNative(tool)) return 'thread';
    this.#verdicts.tell(tool);
    return tool.isolationPinned ? 'thread' : 'process';
  }

  #dispatch(call: EngineCall): Promise<Outcome> {
    const where = this.#whereRuns(call.tool);
    if (where === 'inline') return this.#inline.run(call as EngineCall & { tool: RegisteredInlineTool });
    const blocking = call as EngineCall & { tool: RegisteredBlockingTool };
    if (where === 'fleet') return this.#fleet!.run(blocking);
    if (where === 'process') return this.#processes.run(blocking);
    // A thread that may run native work is never terminated: its call is waited for instead.
    return this.#pool.run(blocking, this.#verdicts.loadsNative(blocking.tool), this.#foundNative);
  }

  /**
   * A call's thread found its tool's module loading native code, and ran nothing: the verdict is
   * kept, and a call not yet decided is placed again with what is left of its budget.
   */
  readonly #foundNative: NativeFound = (call, addons, elapsedMs, decided) => {
    this.#verdicts.record(call.tool, addons);
    if (decided) return undefined;
    const budgetMs = call.budgetMs > 0 ? Math.max(1, call.budgetMs - elapsedMs) : 0;
    return this.#dispatch({ ...call, budgetMs });
  };

  /**
   * Starts the default thread pool, and a process for each process-isolated tool's pool. Settles
   * once the default pool's threads have loaded when a tool of `tools` runs on them (at once
   * otherwise): a server opens its doors after it, so its first call meets a quiet main thread.
   */
  async warmUp(tools: readonly RegisteredTool[] = []): Promise<void> {
    const local = tools.filter(
      (tool): tool is RegisteredBlockingTool => tool.blocking && this.placementOf(tool) === 'local',
    );
    // A server whose blocking tools all run on the fleet needs no threads of its own.
    const threads = this.#fleet === undefined || local.length > 0 ? this.#pool.warmUp() : undefined;
    let onThreads = false;
    for (const tool of local) {
      const where = this.#whereRuns(tool);
      if (where === 'process') this.#processes.warmUp(tool);
      else if (where === 'thread') onThreads = true;
    }
    if (onThreads) await threads;
  }

  /**
   * Follows the fleet job `jobId`, added by another replica for `call.tool`, to its outcome (a task
   * whose replica stopped). Without a fleet there is nothing to follow.
   */
  follow(
    jobId: string,
    call: Omit<EngineCall, 'args' | 'budgetMs'> & { tool: RegisteredBlockingTool },
  ): Promise<Outcome> {
    if (!this.#fleet)
      return Promise.resolve({ kind: 'panicked', detail: 'this server has no fleet to follow a job on' });
    return this.#fleet.follow(jobId, call);
  }

  /** Where a blocking tool's calls run. */
  placementOf(tool: RegisteredBlockingTool): Placement {
    return this.#fleet?.placementOf(tool) ?? 'local';
  }

  /** Resolves once the fleet (if any) is reachable; rejects, saying why, when it is not. */
  async ready(): Promise<void> {
    await this.#fleet?.open();
  }

  /** What each caller key holds (slots) and waits for now; fairness on or off. */
  callers(): CallerHolding[] {
    return this.#admission.holdings();
  }

  /** Sizes of the per-caller tables: scheduler keys, and counters kept here (0 when in Redis). */
  callerTables(): { callerKeys: number; callerCounters: number } {
    return { callerKeys: this.#admission.keyCount, callerCounters: this.#localCounts?.size ?? 0 };
  }

  /** Whether per-caller counts are shared through Redis now (undefined: not configured to be). */
  get countsShared(): boolean | undefined {
    return this.#sharedCounts?.shared;
  }

  /** Thread slots not held by a running or dying call. */
  get freeThreads(): number {
    return this.#admission.freeThreads;
  }

  /** Thread slots that cannot run a call and will not free themselves soon (lost-slots.ts). */
  get lostSlots(): LostSlots {
    return this.#lostSlots;
  }

  /** Jobs waiting in the fleet queue (undefined without a fleet, or while it is unreachable). */
  fleetQueueDepth(): Promise<number | undefined> {
    return this.#fleet?.waitingJobs() ?? Promise.resolve(undefined);
  }

  get queued(): number {
    return this.#admission.queued;
  }

  get threadCount(): number {
    return this.#pool.threadCount;
  }

  /** Pool child processes alive now (tools with isolation: 'process'). */
  get processCount(): number {
    return this.#processes.processCount;
  }

  /** Resolves once no call of a native tool pinned to threads runs (pool-executor.ts). */
  nativeIdle(waiting: (calls: number) => void): Promise<void> {
    return this.#pool.nativeIdle(waiting);
  }

  async close(): Promise<void> {
    await Promise.all([
      this.#pool.close(),
      this.#processes.close(),
      this.#fleet?.close(),
      this.#sharedCounts?.close(),
    ]);
  }
}
