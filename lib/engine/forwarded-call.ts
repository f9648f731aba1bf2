/**
 * `forward(args)` from a transformed tool's custom handler to its blocking original: the handler
 * runs on the main thread (an inline call), the original in the pool, as a call of its own.
 *
 * The inner call is the outer one continued, not a new request: it gets what remains of the outer
 * call's deadline (so the pool's deadline terminates the original's thread when the outer call
 * times out), the outer call's cancel (a client's cancel or a shutdown reaches the thread), its
 * caller for fair admission, its progress and log channels, its client and its answers. It takes a
 * thread slot like any blocking call, but not a second place under `maxCallsInFlight` or the
 * per-caller limits: the outer call already holds those. Its outcome comes back as `forward`'s
 * value or throw, in the terms a handler knows (CallAbandonedError for a deadline or a cancel).
 */

import type { AnswerBook } from '../tools/client-questions.js';
import type { RegisteredBlockingTool } from '../tools/registered-tool.js';
import { CallAbandonedError, MissingClientCapabilityError } from '../tools/tool-context.js';
import { Cancellation } from './cancellation.js';
import type { EngineCall } from './engine-call.js';
import type { Outcome } from './outcome.js';

/** Runs a call on the executor its tool needs (the engine's dispatch). */
export type RunCall = (call: EngineCall) => Promise<Outcome>;

/** What `forward` needs of the outer call's ctx. */
export interface ForwardingCtx {
  readonly deadline: number | undefined;
  readonly signal: AbortSignal;
  readonly book: AnswerBook | undefined;
}

export async function forwardToPool(
  run: RunCall,
  outer: EngineCall,
  ctx: ForwardingCtx,
  tool: RegisteredBlockingTool,
  args: Record<string, unknown>,
): Promise<unknown> {
  // The custom handler may send anything: the original's own schema judges what reaches it.
  const checked = await tool.checkArguments(args);
  if (!checked.ok) throw new TypeError(`forward to "${tool.name}": ${checked.problem}`);
  if (ctx.signal.aborted) throw ctx.signal.reason;
  const budgetMs = ctx.deadline === undefined ? 0 : Math.max(1, ctx.deadline - Date.now());
  const cancellation = new Cancellation();
  const onOuterCancel = (reason: 'cancelled' | 'shutdown') => cancellation.cancel(reason);
  // The outer call abandoned (its deadline, its cancel, a round of questions) stops the inner one.
  const onAbandoned = () => cancellation.cancel(outer.cancellation.reason ?? 'cancelled');
  outer.cancellation.onCancel(onOuterCancel);
  ctx.signal.addEventListener('abort', onAbandoned, { once: true });
  let outcome: Outcome;
  try {
    outcome = await run({
      tool,
      args: checked.value as Record<string, unknown>,
      budgetMs,
      cancellation,
      events: outer.events,
      ...(outer.caller ? { caller: outer.caller } : {}),
      ...(outer.peer ? { peer: outer.peer } : {}),
      ...(outer.auth ? { auth: outer.auth } : {}),
      ...(outer.inputs ? { inputs: outer.inputs } : {}),
    });
  } finally {
    outer.cancellation.offCancel(onOuterCancel);
    ctx.signal.removeEventListener('abort', onAbandoned);
  }
  switch (outcome.kind) {
    case 'ok':
      return outcome.value;
    case 'tool-error':
      throw outcome.missingCapability
        ? Object.assign(new MissingClientCapabilityError(outcome.missingCapability, 'answer'), {
            message: outcome.message,
          })
        : new Error(outcome.message);
    case 'input-required':
      // The original asked what the outer call's answers lack: they become the outer call's round
      // (under the original's own keys, so its retry finds them), which ends this attempt.
      if (ctx.book === undefined)
        throw new Error(`forward to "${tool.name}": its questions found no answers`);
      return Promise.all(
        outcome.questions.map((question) =>
          ctx.book!.ask(question.method, question.params, { key: question.key }),
        ),
      );
    case 'timeout':
      // The inner deadline is the outer one, so the outer call's own timer fires within a
      // millisecond of this: let it decide, so the client is told of a timeout, not of an error.
      await abandonedOrAfter(ctx.signal, 1000);
      throw new CallAbandonedError('timeout');
    case 'cancelled':
      throw new CallAbandonedError(outcome.reason);
    case 'panicked':
      throw new Error(outcome.publicReason ?? `the worker running "${tool.name}" died`);
    case 'overloaded':
      throw new Error(outcome.reason);
  }
}

/** Resolves when `signal` aborts, or after `ms` at the latest. */
function abandonedOrAfter(signal: AbortSignal, ms: number): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
