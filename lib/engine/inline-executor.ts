/**
 * Runs inline tools on the event loop, for handlers that mostly await I/O.
 *
 * The deadline is enforced with p-timeout; a deadline or a cancel aborts `ctx.signal` so
 * that a well-behaved handler stops its I/O. An inline handler that blocks the event loop cannot be stopped
 * by anyone: that is what `blocking: true` is for. Whatever the handler produces after the outcome
 * is decided is dropped. A call run in rounds ends, too, when its handler asks a question its
 * answers lack (the 'input-required' outcome; see client-questions.ts).
 */
import pTimeout from 'p-timeout';
import { QuestionsAsked, untilQuestions } from '../tools/client-questions.js';
import type { RegisteredInlineTool } from '../tools/registered-tool.js';
import { MissingClientCapabilityError } from '../tools/tool-context.js';
import { type Admission, OverloadedError } from './admission.js';
import type { Cancellation } from './cancellation.js';
import type { EngineCall } from './engine-call.js';
import type { RunCall } from './forwarded-call.js';
import { InlineToolContext } from './inline-tool-context.js';
import type { Outcome } from './outcome.js';
import { overloaded } from './pooled-call.js';

export class InlineExecutor {
  readonly #admission: Admission;
  /** Runs a transformed tool's forward to its pooled original (forwarded-call.ts). */
  readonly #run: RunCall | undefined;

  constructor(admission: Admission, run?: RunCall) {
    this.#admission = admission;
    this.#run = run;
  }

  async run(call: EngineCall & { tool: RegisteredInlineTool }): Promise<Outcome> {
    const { tool, budgetMs } = call;
    const ctx = new InlineToolContext(call, this.#run);
    const work =
      tool.concurrency === Number.POSITIVE_INFINITY
        ? (async () => tool.handler(call.args as never, ctx))()
        : this.#runAdmitted(call, ctx);
    // A handler that rejects after the outcome was decided must not surface as an unhandled rejection.
    work.catch(() => {});

    try {
      const value = await withDeadline(
        untilCancelled(untilQuestions(work, ctx.book), call.cancellation),
        budgetMs,
      );
      if (value instanceof QuestionsAsked) {
        ctx.abandon('input-required');
        return { kind: 'input-required', questions: value.questions };
      }
      return { kind: 'ok', value };
    } catch (error) {
      if (error === DEADLINE_PASSED) {
        ctx.abandon('timeout');
        return { kind: 'timeout', limitMs: budgetMs };
      }
      const reason = call.cancellation.reason;
      if (reason !== undefined) {
        ctx.abandon(reason);
        return { kind: 'cancelled', reason };
      }
      if (error instanceof OverloadedError) return overloaded(error);
      if (error instanceof MissingClientCapabilityError) {
        return { kind: 'tool-error', message: error.message, missingCapability: error.capability };
      }
      return { kind: 'tool-error', message: messageOf(error) };
    }
  }

  /** A tool with its own `concurrency` waits for a turn; the turn is held until the handler settles. */
  async #runAdmitted(
    call: EngineCall & { tool: RegisteredInlineTool },
    ctx: InlineToolContext,
  ): Promise<unknown> {
    const release = await this.#admission.acquire(call.tool, false, ctx.signal, call.caller);
    try {
      return await call.tool.handler(call.args as never, ctx);
    } finally {
      release();
    }
  }
}

/** What the deadline's race rejects with; only this module ever sees it. */
const DEADLINE_PASSED = new Error('The call passed its deadline');

/**
 * `work`, or a rejection with DEADLINE_PASSED once `budgetMs` has passed, through p-timeout. Its one
 * cost on the hot path is the TimeoutError it builds up front on every call with a deadline (a stack
 * trace: a fifth of the main thread under pipelined load); weft never shows that error, so no stack
 * is captured. Rejecting with a sentinel of weft's own means a TimeoutError that the handler itself
 * throws is the handler's error, not weft's deadline.
 */
function withDeadline<T>(work: Promise<T>, budgetMs: number): Promise<T> {
  if (budgetMs <= 0) return work;
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return pTimeout(work, { milliseconds: budgetMs, message: DEADLINE_PASSED });
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

/** What a cancelled call's race rejects with; the caller looks at the cancellation's reason, not at this. */
const CANCELLED = new Error('The call was cancelled');

/** `work`, or a rejection as soon as the call is cancelled, whichever comes first. */
function untilCancelled<T>(work: Promise<T>, cancellation: Cancellation): Promise<T> {
  if (cancellation.cancelled) return Promise.reject(CANCELLED);
  return new Promise<T>((resolve, reject) => {
    const onCancel = () => reject(CANCELLED);
    cancellation.onCancel(onCancel);
    work.then(
      (value) => {
        cancellation.offCancel(onCancel);
        resolve(value);
      },
      (error: unknown) => {
        cancellation.offCancel(onCancel);
        reject(error);
      },
    );
  });
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error;
  return 'The tool failed without an error message';
}
