/**
 * The life of one call on a pool, threads or processes alike: wait for a slot (or be refused as
 * overloaded), start, and end with exactly one outcome, decided by whichever comes first of the
 * work's own answer, the deadline and the client's cancel.
 *
 * What differs between pools is only how work starts and how it is stopped; that is the executor's
 * part (`start` returns how to `abandon` it). Everything about deciding once lives here, so the two
 * executors cannot drift apart on it.
 */
import { receiveMovedStrings } from '../tools/moved-strings.js';
import type { AbandonReason } from './abandon-reason.js';
import { type Admission, OverloadedError, type QueuedWait, type Release } from './admission.js';
import type { CancelReason } from './cancellation.js';
import type { EngineCall } from './engine-call.js';
import type { Outcome } from './outcome.js';
import type { PoolTaskResult } from './worker-protocol.js';

export interface CallDecision {
  /** True once the outcome is decided; whatever arrives later is dropped. */
  readonly decided: boolean;
  /** Decides the outcome, if it is not decided yet. */
  decide(outcome: Outcome): void;
}

export interface StartedWork {
  /** The outcome was decided as a timeout or a cancel while the work runs: stop it. */
  abandon(reason: AbandonReason): void;
}

export interface PooledCallHooks {
  /**
   * Starts the work in the slot it was given; the executor gives the slot back when it is free.
   * `waited` says the call queued for the slot: it starts inside the release of the call before it,
   * which is the moment that call's thread fell idle.
   */
  start(release: Release, decision: CallDecision, waited: boolean): StartedWork;
  /** Runs once, as the outcome is decided, whatever decided it. */
  onDecided?(outcome: Outcome): void;
  /** True when the executor is closing: a slot granted now is handed back and the call cancelled. */
  isClosed?(): boolean;
  /**
   * Whether the work takes one of this machine's thread slots (default true). Fleet calls do not:
   * they are bounded by the tool's `concurrency` here and by the fleet queue's own bound.
   */
  readonly needsThread?: boolean;
}

export function runPooledCall(
  admission: Admission,
  call: EngineCall,
  hooks: PooledCallHooks,
): Promise<Outcome> {
  return new Promise<Outcome>((resolve) => new PooledCall(admission, call, hooks, resolve).begin());
}

/**
 * One call's decision and what can decide it. A class rather than closures and an object literal
 * with a getter: a blocking call's whole main-thread cost is on the path the benchmarks measure,
 * and a literal with an accessor is rebuilt through V8's slow path on every call.
 */
class PooledCall implements CallDecision {
  decided = false;
  readonly #admission: Admission;
  readonly #call: EngineCall;
  readonly #hooks: PooledCallHooks;
  readonly #resolve: (outcome: Outcome) => void;
  #work: StartedWork | undefined;
  /** Set while the call waits in the queue for a slot. */
  #waiting: QueuedWait | undefined;
  #deadlineTimer: NodeJS.Timeout | undefined;
  readonly #onCancel = (reason: CancelReason) => this.#abandon(reason);

  constructor(admission: Admission, call: EngineCall, hooks: PooledCallHooks, resolve: (o: Outcome) => void) {
    this.#admission = admission;
    this.#call = call;
    this.#hooks = hooks;
    this.#resolve = resolve;
  }

  begin(): void {
    const call = this.#call;
    const { cancellation } = call;
    if (cancellation.reason !== undefined) {
      this.#abandon(cancellation.reason);
      return;
    }
    // The common case, a free slot, starts at once: no promise hop, no AbortController.
    const free = this.#admission.tryAcquire(call.tool, this.#hooks.needsThread ?? true, call.caller);
    if (free) this.#start(free, false);
    else this.#queue();
    // The deadline and the cancel listener are armed once the work has started or queued. Nothing
    // can decide the call in between: all of this runs in one synchronous turn.
    if (this.decided) return;
    if (call.budgetMs > 0) this.#deadlineTimer = setTimeout(() => this.#abandon('timeout'), call.budgetMs);
    cancellation.onCancel(this.#onCancel);
  }

  decide(outcome: Outcome): void {
    if (this.decided) return;
    this.decided = true;
    clearTimeout(this.#deadlineTimer);
    this.#call.cancellation.offCancel(this.#onCancel);
    this.#hooks.onDecided?.(outcome);
    this.#resolve(outcome);
  }

  #abandon(reason: AbandonReason): void {
    if (this.decided) return;
    this.decide(
      reason === 'timeout'
        ? { kind: 'timeout', limitMs: this.#call.budgetMs }
        : { kind: 'cancelled', reason },
    );
    const work = this.#work;
    if (work === undefined) this.#waiting?.withdraw();
    // A timeout's answer is written first and the work is stopped right after: killing a process
    // tree scans /proc, 11-47 ms on a busy machine, which the answer at the deadline must not wait
    // for. The answer reaches its transport in this turn's microtasks and stdio writes it in this
    // turn's setImmediate callbacks; an immediate queued from one of those runs after them all.
    // A cancel has no answer to hurry, and stopping at once lets a call not yet posted never reach
    // a thread.
    else if (reason === 'timeout') setImmediate(() => setImmediate(() => work.abandon(reason)));
    else work.abandon(reason);
  }

  #start(release: Release, waited: boolean): void {
    if (this.#hooks.isClosed?.()) {
      release();
      this.decide({ kind: 'cancelled', reason: 'shutdown' });
      return;
    }
    this.#call.watch?.started();
    this.#work = this.#hooks.start(release, this, waited);
  }

  #queue(): void {
    const wait = this.#admission.enqueue(
      this.#call.tool,
      this.#hooks.needsThread ?? true,
      (release) => {
        this.#waiting = undefined;
        if (this.decided) release();
        else this.#start(release, true);
      },
      this.#call.caller,
    );
    if (wait instanceof OverloadedError) this.decide(overloaded(wait));
    else {
      this.#waiting = wait;
      this.#call.watch?.queued();
    }
  }
}

/** The outcome of a refusal by the queue, or by the caller's own queued limit. */
export function overloaded(error: OverloadedError): Outcome {
  return error.limit
    ? { kind: 'overloaded', reason: error.message, limit: error.limit }
    : { kind: 'overloaded', reason: error.message };
}

/**
 * What a worker's answer means for its call: the handler's value, or the error it returned. An
 * answer that says the handler stopped because its call was abandoned is never a tool error: a
 * thread says so only once the server has decided the call (the outcome stands), and a process,
 * which watches the deadline on its own clock, may say it a moment before the server's timer
 * fires: that call timed out (`limitMs`, its budget; 0 where the answer comes only after the
 * decision, as from a thread).
 */
export function resultOutcome(result: PoolTaskResult, limitMs = 0): Outcome {
  if (result.ok === false && result.abandoned && limitMs > 0) return { kind: 'timeout', limitMs };
  if (result.ok === true) {
    // A thread's long strings came as bytes: they become fields that read them when asked.
    if (result.moved !== undefined) receiveMovedStrings(result.value, result.moved);
    return { kind: 'ok', value: result.value };
  }
  if (result.ok === 'input-required') return { kind: 'input-required', questions: result.questions };
  return result.missingCapability === undefined
    ? { kind: 'tool-error', message: result.message }
    : { kind: 'tool-error', message: result.message, missingCapability: result.missingCapability };
}

/**
 * The worker (thread or process) running a call died under it: the server log gets the whole error,
 * the client a panic that says only that.
 */
export function decideWorkerDied(
  decision: CallDecision,
  logError: (message: string) => void,
  what: string,
  error: unknown,
): void {
  logError(`weft: ${what} died: ${(error as Error)?.stack ?? String(error)}`);
  decision.decide({ kind: 'panicked', detail: (error as Error)?.message ?? String(error) });
}
