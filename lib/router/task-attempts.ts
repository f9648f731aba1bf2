/**
 * A task's attempts, on the replica that runs it: run the call on the engine with a book of
 * answers; a question the book lacks ends the attempt, the task waits `input_required` with
 * nothing running (a modern client answers with tasks/update; a legacy session is asked live, the
 * questions tagged with the task), and the next attempt runs with every answer so far. The final
 * outcome becomes the record's terminal change (task-outcomes.ts).
 *
 * Split from task-runner.ts, which owns the tasks of a replica (start, cancel, signals, writes);
 * this file owns what one task does while it runs. A shutdown stops the work: a fleet task whose
 * store can hand it over is left to another replica (its job goes on), any other ends failed.
 */
import type { Cancellation } from '../engine/cancellation.js';
import { effectiveBudgetMs } from '../engine/deadline.js';
import type { Engine } from '../engine/engine.js';
import type { CallEvents, CallPeer } from '../engine/engine-call.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { NO_LOGS } from '../protocol/log-levels.js';
import type { TaskChange, TaskQuestion, TaskRecord } from '../tasks/task-record.js';
import type { TaskStore } from '../tasks/task-store.js';
import {
  isInputRequiredReturn,
  QUESTION_METHODS,
  type Question,
  questionsOf,
} from '../tools/client-questions.js';
import type { RegisteredTool } from '../tools/registered-tool.js';
import type { CallerKeys } from './caller-keys.js';
import type { MethodContext } from './method-table.js';
import { askLive, waitForInput } from './task-input.js';
import { finalChange, relatedTaskSink, shutDown } from './task-outcomes.js';

/** A task running on this replica. */
export interface RunningTask {
  readonly cancellation: Cancellation;
  /** Wakes the runner while it waits for input (new answers, or a cancel). */
  wake: (() => void) | undefined;
  /** Left to another replica at shutdown (its fleet job goes on): not released, not failed. */
  handedOver?: boolean;
  /** Called once the first fleet job of the task is in Redis and named in its record. */
  jobRecorded?: () => void;
}

/** A task's handler reports progress and logs to nobody: no request is waiting for them. */
export const SILENT: CallEvents = { minLogLevel: NO_LOGS, log: () => {} };

/** How many attempts a task may make, each ending with new questions, before it is failed. */
const MAX_ROUNDS = 64;

/** What the attempts need of the runner. */
export interface AttemptDeps {
  readonly engine: Engine;
  readonly store: TaskStore;
  /** The server-wide deadline (0 = none); each attempt has it whole. */
  readonly timeoutMs: number;
  readonly peer?: (ctx: MethodContext) => CallPeer;
  readonly callers?: CallerKeys;
  /** Writes a change to the task's record and tells who waits (undefined: it was terminal). */
  write(
    record: TaskRecord,
    ctx: MethodContext | undefined,
    change: TaskChange,
  ): Promise<TaskRecord | undefined>;
}

export async function runTaskAttempts(
  deps: AttemptDeps,
  record: TaskRecord,
  ctx: MethodContext,
  tool: RegisteredTool,
  args: Record<string, unknown>,
  running: RunningTask,
): Promise<void> {
  const { engine, store } = deps;
  const write = (change: TaskChange) => deps.write(record, ctx, change);
  const { cancellation } = running;
  const legacy = record.era === 'legacy';
  // A legacy task's questions go out on the session's own stream, tagged with the task: the
  // stream of the request that created it has already ended.
  const taskCtx: MethodContext = legacy
    ? { ...ctx, sink: relatedTaskSink(ctx.session.sink, record.taskId) }
    : ctx;
  const peer = deps.peer ? { peer: deps.peer(taskCtx) } : {};
  const budgetMs = effectiveBudgetMs(deps.timeoutMs, tool.timeoutMs);
  const caller = deps.callers ? { caller: deps.callers.callerOf(ctx, tool, args) } : {};
  let answers = record.answers ?? {};
  let state = record.state;
  for (let round = 0; ; round++) {
    const outcome = await engine.run({
      tool,
      args,
      budgetMs,
      cancellation,
      events: SILENT,
      auth: ctx.scope.principal,
      // The task's work outlives the request that made it: its spans are linked to it.
      ...(ctx.trace ? { trace: { request: ctx.trace.request, linked: true, taskId: record.taskId } } : {}),
      ...peer,
      ...caller,
      inputs: state === undefined ? { answers } : { answers, state },
      // On the fleet the work may outlive this replica: the record says which job to follow.
      onFleetJob: (fleetJob) => {
        store
          .update(record.taskId, { fleetJob })
          .catch(() => {})
          .finally(() => running.jobRecorded?.());
      },
      keepOnShutdown: store.handOver !== undefined,
    });
    if (
      cancellation.reason === 'shutdown' &&
      store.handOver &&
      tool.blocking &&
      engine.placementOf(tool) === 'fleet'
    ) {
      running.handedOver = true;
      store.handOver(record.taskId);
      return;
    }
    if (cancellation.cancelled) {
      // A client's cancel has already written `cancelled`; a shutdown has not.
      if (cancellation.reason === 'shutdown') await write(shutDown(tool));
      return;
    }
    let questions: Question[] | undefined;
    if (outcome.kind === 'input-required') questions = outcome.questions;
    else if (outcome.kind === 'ok' && isInputRequiredReturn(outcome.value)) {
      questions = questionsOf(outcome.value);
      state = outcome.value.state;
    }
    if (questions === undefined) {
      await write(finalChange(record, tool, outcome));
      return;
    }
    if (round >= MAX_ROUNDS) {
      await write({
        status: 'failed',
        statusMessage: `The tool asked for input ${MAX_ROUNDS} times in a row`,
        error: {
          code: ErrorCode.InternalError,
          message: `Tool "${tool.name}" asked for input ${MAX_ROUNDS} times in a row; it should finish`,
        },
      });
      return;
    }
    const missing = questions.find(
      ({ method }) => ctx.scope.clientCapabilities[QUESTION_METHODS[method].capability] === undefined,
    );
    if (missing !== undefined) {
      const capability = QUESTION_METHODS[missing.method].capability;
      const message = `Tool "${tool.name}" needs the client capability "${capability}" (to send ${missing.method}), which the client did not declare`;
      await write({
        status: 'failed',
        statusMessage: message,
        error: {
          code: legacy ? ErrorCode.InvalidRequest : ErrorCode.MissingRequiredClientCapability,
          message,
          ...(legacy ? {} : { data: { requiredCapabilities: { [capability]: {} } } }),
        },
      });
      return;
    }
    const inputRequests: Record<string, TaskQuestion> = {};
    for (const { key, method, params } of questions) inputRequests[key] = { method, params };
    const waiting: TaskChange = {
      status: 'input_required',
      inputRequests,
      statusMessage: 'Waiting for input',
    };
    if (state !== undefined) waiting.state = state;
    if ((await write(waiting)) === undefined) return;
    const next = legacy
      ? await askLive(taskCtx, questions, answers, cancellation, write)
      : await waitForInput(store, record.taskId, running);
    if (next === undefined) {
      if (cancellation.reason === 'shutdown') await write(shutDown(tool));
      return;
    }
    answers = next;
    if (!legacy) {
      const fresh = await store.get(record.taskId);
      state = fresh?.state;
    }
  }
}
