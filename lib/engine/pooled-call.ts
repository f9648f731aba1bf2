/**
 * The life of one call on a pool, threads or processes alike: wait for a slot (or be refused as
 * overloaded), start, and end with exactly one outcome, decided by whichever comes first of the
 * work's own answer, the deadline and the client's cancel.
 *
 * What differs between pools is only how work starts and how it is stopped; that is the executor's
 * part (`start` returns how to `abandon` it). Everything about deciding once lives here, so the two
 * executors cannot drift apart on it.
 */
import type { AbandonReason } from './abandon-reason.js';
import { type Admission, OverloadedError, type Release } from './admission.js';
import { cancelReasonOf, type EngineCall } from './engine-call.js';
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
  /** Starts the work in the slot it was given; the executor gives the slot back when it is free. */
  start(release: Release, decision: CallDecision): StartedWork;
  /** Runs once, as the outcome is decided, whatever decided it. */
  onDecided?(outcome: Outcome): void;
  /** True when the executor is closing: a slot granted now is handed back and the call cancelled. */
  isClosed?(): boolean;
}

export function runPooledCall(
  admission: Admission,
  call: EngineCall,
  hooks: PooledCallHooks,
): Promise<Outcome> {
  return new Promise<Outcome>((resolve) => {
    const { budgetMs } = call;
    let work: StartedWork | undefined;
    /** Made only when the call has to queue for a slot. */
    let stopWaiting: AbortController | undefined;
    let decided = false;

    const decision: CallDecision = {
      get decided() {
        return decided;
      },
      decide(outcome) {
        if (decided) return;
        decided = true;
        clearTimeout(deadlineTimer);
        call.signal.removeEventListener('abort', onCancel);
        hooks.onDecided?.(outcome);
        resolve(outcome);
      },
    };

    const abandon = (reason: AbandonReason) => {
      if (decided) return;
      decision.decide(
        reason === 'timeout' ? { kind: 'timeout', limitMs: budgetMs } : { kind: 'cancelled', reason },
      );
      if (work) work.abandon(reason);
      else stopWaiting?.abort(reason);
    };

    const onCancel = () => abandon(cancelReasonOf(call.signal));
    const deadlineTimer = budgetMs > 0 ? setTimeout(() => abandon('timeout'), budgetMs) : undefined;
    call.signal.addEventListener('abort', onCancel, { once: true });
    if (call.signal.aborted) {
      onCancel();
      return;
    }

    const begin = (release: Release) => {
      if (hooks.isClosed?.()) {
        release();
        decision.decide({ kind: 'cancelled', reason: 'shutdown' });
        return;
      }
      work = hooks.start(release, decision);
    };

    // The common case, a free slot, starts at once: no promise hop, no AbortController.
    const free = admission.tryAcquire(call.tool, true);
    if (free) {
      begin(free);
      return;
    }
    stopWaiting = new AbortController();
    admission.acquire(call.tool, true, stopWaiting.signal).then(
      (release) => {
        if (decided) release();
        else begin(release);
      },
      (error: unknown) => {
        if (error instanceof OverloadedError) decision.decide({ kind: 'overloaded', reason: error.message });
        // Otherwise the call was abandoned while it waited; its outcome is already decided.
      },
    );
  });
}

/** What a worker's answer means for its call: the handler's value, or the error it returned. */
export function resultOutcome(result: PoolTaskResult): Outcome {
  return result.ok ? { kind: 'ok', value: result.value } : { kind: 'tool-error', message: result.message };
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
