/**
 * Runs inline tools on the event loop, for handlers that mostly await I/O.
 *
 * The deadline is enforced with p-timeout; a deadline or a cancel aborts `ctx.signal` so that a
 * well-behaved handler stops its I/O. An inline handler that blocks the event loop cannot be stopped
 * by anyone: that is what `blocking: true` is for. Whatever the handler produces after the outcome
 * is decided is dropped.
 */
import pTimeout, { TimeoutError } from 'p-timeout';
import type { RegisteredInlineTool } from '../tools/registered-tool.js';
import {
  CallAbandonedError,
  clientRequestMethods,
  LOG_LEVELS,
  type LogLevel,
  type ToolContext,
} from '../tools/tool-context.js';
import { type Admission, OverloadedError, type Release } from './admission.js';
import { cancelReasonOf, type EngineCall } from './engine-call.js';
import type { Outcome } from './outcome.js';

export class InlineExecutor {
  readonly #admission: Admission;

  constructor(admission: Admission) {
    this.#admission = admission;
  }

  async run(call: EngineCall & { tool: RegisteredInlineTool }): Promise<Outcome> {
    const { tool, budgetMs } = call;
    const abandon = new AbortController();
    const ctx = inlineContext(call, abandon.signal);
    let release: Release | undefined;

    const work = (async () => {
      if (tool.concurrency !== Number.POSITIVE_INFINITY) {
        release = await this.#admission.acquire(tool, false, abandon.signal);
      }
      return tool.handler(call.args as never, ctx);
    })();
    // A handler that rejects after the outcome was decided must not surface as an unhandled rejection.
    work.catch(() => {});
    work.finally(() => release?.()).catch(() => {});

    try {
      const value = await withDeadline(work, budgetMs, call.signal);
      return { kind: 'ok', value };
    } catch (error) {
      if (error instanceof TimeoutError) {
        abandon.abort(new CallAbandonedError('timeout'));
        return { kind: 'timeout', limitMs: budgetMs };
      }
      if (call.signal.aborted) {
        const reason = cancelReasonOf(call.signal);
        abandon.abort(new CallAbandonedError(reason));
        return { kind: 'cancelled', reason };
      }
      if (error instanceof OverloadedError) return { kind: 'overloaded', reason: error.message };
      return { kind: 'tool-error', message: messageOf(error) };
    }
  }
}

/**
 * p-timeout, minus its one cost on the hot path: it builds its TimeoutError (capturing a stack
 * trace) up front on every call that has a deadline, which profiled at a fifth of the main
 * thread's time under pipelined load. weft never shows that stack, so none is captured.
 */
function withDeadline<T>(work: Promise<T>, budgetMs: number, signal: AbortSignal): Promise<T> {
  if (budgetMs <= 0) return pTimeout(work, { milliseconds: Number.POSITIVE_INFINITY, signal });
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return pTimeout(work, { milliseconds: budgetMs, signal });
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

function inlineContext(call: EngineCall, signal: AbortSignal): ToolContext {
  const deadline = call.budgetMs > 0 ? Date.now() + call.budgetMs : undefined;
  let lastProgress = Number.NEGATIVE_INFINITY;
  const { peer } = call;
  // Requests to the client are abandoned with the call: the client hears notifications/cancelled.
  const reach: Partial<ToolContext> = peer
    ? {
        ...clientRequestMethods(peer.clientCapabilities, (method, params) =>
          peer.request(method, params, signal),
        ),
        tools: () => peer.tools(signal),
        resources: () => peer.resources(),
        prompts: () => peer.prompts(),
      }
    : {};
  return {
    ...reach,
    signal,
    deadline,
    checkpoint() {
      if (signal.aborted) throw signal.reason;
    },
    progress(progress, total, message) {
      if (signal.aborted || !call.events.progress || !(progress > lastProgress)) return;
      lastProgress = progress;
      call.events.progress(progress, total, message);
    },
    log(level: LogLevel, data: unknown) {
      if (signal.aborted || LOG_LEVELS.indexOf(level) < call.events.minLogLevel) return;
      call.events.log(level, data);
    },
  };
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error;
  return 'The tool failed without an error message';
}
