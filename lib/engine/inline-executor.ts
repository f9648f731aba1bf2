/**
 * Runs inline tools on the event loop, for handlers that mostly await I/O.
 *
 * The deadline is a timer raced against the handler; a deadline or a cancel aborts `ctx.signal` so
 * that a well-behaved handler stops its I/O. An inline handler that blocks the event loop cannot be stopped
 * by anyone: that is what `blocking: true` is for. Whatever the handler produces after the outcome
 * is decided is dropped. A call run in rounds ends, too, when its handler asks a question its
 * answers lack (the 'input-required' outcome; see client-questions.ts).
 */
import { QuestionsAsked, untilQuestions } from '../tools/client-questions.js';
import type { RegisteredInlineTool } from '../tools/registered-tool.js';
import { MissingClientCapabilityError } from '../tools/tool-context.js';
import { type Admission, OverloadedError } from './admission.js';
import type { Cancellation } from './cancellation.js';
import type { EngineCall } from './engine-call.js';
import { InlineToolContext } from './inline-tool-context.js';
import type { Outcome } from './outcome.js';

export class InlineExecutor {
  readonly #admission: Admission;

  constructor(admission: Admission) {
    this.#admission = admission;
  }

  async run(call: EngineCall & { tool: RegisteredInlineTool }): Promise<Outcome> {
    const { tool, budgetMs } = call;
    const ctx = new InlineToolContext(call);
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
      if (error instanceof OverloadedError) return { kind: 'overloaded', reason: error.message };
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
    const release = await this.#admission.acquire(call.tool, false, ctx.signal);
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
 * `work`, or a rejection once `budgetMs` has passed. A timer and one promise: p-timeout, used here
 * before, built its TimeoutError up front on every call with a deadline (a stack trace, and without
 * one still 4-5 us more per call than this race in a microbenchmark; 1.6% of the server's busy time
 * in a profile of the modern HTTP echo). A sentinel of weft's own also means a TimeoutError that
 * the handler itself throws is the handler's error, not weft's deadline.
 */
function withDeadline<T>(work: Promise<T>, budgetMs: number): Promise<T> {
  if (budgetMs <= 0) return work;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(DEADLINE_PASSED), budgetMs);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
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
