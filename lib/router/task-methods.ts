/**
 * The tasks methods of both eras, over one TaskRunner and its store.
 *
 * 2025-11-25 (experimental core tasks): `tasks/get` answers the Task, `tasks/result` waits for
 * the end and answers the call's own result (or its error), `tasks/list` pages a session's tasks
 * by id with an opaque cursor, `tasks/cancel` answers the Task and refuses a terminal one (-32602).
 *
 * 2026-07-28 (extension io.modelcontextprotocol/tasks): every method needs the extension in the
 * request's clientCapabilities (-32021 otherwise); `tasks/get` inlines the result, the error or
 * the pending input; `tasks/update` and `tasks/cancel` are bare acknowledgements (a cancel of a
 * terminal task too); tasks/result and tasks/list do not exist (the router answers -32601).
 *
 * A task belongs to the principal that created it (TaskRecord.principal): to any other caller it
 * is unknown, with the very error an id that never existed gets, so no one learns it exists.
 *
 * A task an upstream created for a mounted tool (server.mount) lives upstream, not in this store:
 * its tasks/get, tasks/update, tasks/cancel and tasks/result are handed to `forwarded`, which
 * answers them from the upstream that owns the task, for the caller that created it only.
 * (tasks/list shows this server's own tasks only.)
 *
 * It also decides, per tools/call, whether the call becomes a task (`taskModeOf`).
 */
import { principalKey } from '../auth/principal.js';
import { RELATED_TASK_META, TASKS_EXTENSION } from '../protocol/eras.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import type { TaskRecord } from '../tasks/task-record.js';
import type { RegisteredTool } from '../tools/registered-tool.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { type MethodContext, NO_RESPONSE } from './method-table.js';
import type { Router } from './router.js';
import { ownerOf, type TaskRunner } from './task-runner.js';
import { detailedTask, legacyTask } from './task-wire.js';

function hasTasksExtension(ctx: MethodContext): boolean {
  const extensions = ctx.scope.clientCapabilities.extensions;
  return typeof extensions === 'object' && extensions !== null && TASKS_EXTENSION in extensions;
}

function missingExtension(what: string): ProtocolError {
  return new ProtocolError(
    ErrorCode.MissingRequiredClientCapability,
    `${what} needs the tasks extension: declare "${TASKS_EXTENSION}" in clientCapabilities.extensions`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  );
}

/**
 * Whether this tools/call runs as a task. Modern: when the tool supports tasks and the request
 * declares the extension (a legacy `task` param is ignored); a task-only tool without it is -32021.
 * Legacy: when the tool supports tasks and the request carries `task`; a task-only tool without it
 * is refused. A `task` param for a tool without task support is ignored (the call runs as usual).
 */
export function taskModeOf(ctx: MethodContext, tool: RegisteredTool): boolean {
  if (tool.task === undefined) return false;
  if (ctx.scope.era === 'modern') {
    if (hasTasksExtension(ctx)) return true;
    if (tool.task === 'required')
      throw missingExtension(`Tool "${tool.name}" runs only as a task, so calling it`);
    return false;
  }
  const task = ctx.params.task;
  if (typeof task === 'object' && task !== null && !Array.isArray(task)) return true;
  if (tool.task === 'required') {
    throw ProtocolError.invalidParams(
      `Tool "${tool.name}" runs only as a task: call it with params.task (for example "task": {}), then poll tasks/get`,
    );
  }
  return false;
}

function readTaskId(params: Record<string, unknown>): string {
  if (typeof params.taskId !== 'string' || params.taskId === '') {
    throw ProtocolError.invalidParams('params.taskId must be the taskId a tools/call answered with');
  }
  return params.taskId;
}

function unknownTask(taskId: string): ProtocolError {
  return ProtocolError.invalidParams(
    `Unknown task: ${taskId} (it never existed here, or it expired after its ttl)`,
  );
}

/** Tasks that upstreams own (server.mount): the mounted upstreams, asked in turn. */
export interface ForwardedTasks {
  /**
   * The upstream's answer to a modern tasks/get, tasks/update or tasks/cancel of a task it created
   * for this caller, or undefined when no upstream has such a task for `principal`. An upstream
   * error is thrown as a ProtocolError with the upstream's code, message and data.
   */
  forward(
    method: ForwardedMethod,
    params: Record<string, unknown>,
    caller: ForwardedCaller,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> | undefined;
}

type ForwardedMethod = 'tasks/get' | 'tasks/update' | 'tasks/cancel' | 'tasks/result';

/** Who asks about a forwarded task, and how to put the upstream's questions to them (legacy). */
export interface ForwardedCaller {
  principal: string | undefined;
  /** The session's task owner key (the legacy era scopes tasks to their session). */
  session: string;
  era: 'legacy' | 'modern';
  clientCapabilities: Record<string, unknown>;
  ask(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
}

/** `pageSize`: tasks per tasks/list page (the server's page size, as for every list). */
export function addTaskMethods(
  router: Router,
  runner: TaskRunner,
  pageSize: number,
  forwarded?: ForwardedTasks,
): void {
  const { store } = runner;

  /** The owning upstream's answer when the task is a mounted tool's, else undefined. */
  async function upstreamAnswer(
    ctx: MethodContext,
    method: ForwardedMethod,
  ): Promise<Record<string, unknown> | typeof NO_RESPONSE | undefined> {
    if (!forwarded) return undefined;
    readTaskId(ctx.params);
    const { principal } = ctx.scope;
    const cancellation = ctx.session.begin(ctx.request.id);
    try {
      const answer = await forwarded.forward(
        method,
        ctx.params,
        {
          principal: principal === undefined ? undefined : principalKey(principal),
          session: ownerOf(ctx.session),
          era: ctx.scope.era,
          clientCapabilities: ctx.scope.clientCapabilities,
          ask: (method, params, signal) => ctx.session.request(method, params, signal, ctx.sink),
        },
        cancellation.signal,
      );
      // Cancelled by its client meanwhile: nothing is answered, as for a local task's request.
      return cancellation.cancelled && answer !== undefined ? NO_RESPONSE : answer;
    } catch (error) {
      if (cancellation.cancelled) return NO_RESPONSE;
      throw error;
    } finally {
      ctx.session.end(ctx.request.id);
    }
  }

  /**
   * The task if this request may see it: only its principal's (both eras), and in legacy only its
   * own session's; modern by id otherwise.
   */
  async function find(ctx: MethodContext, taskId: string): Promise<TaskRecord> {
    const record = await store.get(taskId);
    if (record === undefined) throw unknownTask(taskId);
    const { principal } = ctx.scope;
    if (record.principal !== (principal === undefined ? undefined : principalKey(principal))) {
      throw unknownTask(taskId);
    }
    if (ctx.scope.era === 'legacy' && record.owner !== undefined && record.owner !== ownerOf(ctx.session)) {
      throw unknownTask(taskId);
    }
    return record;
  }

  function gate(ctx: MethodContext, method: string): void {
    if (ctx.scope.era === 'modern' && !hasTasksExtension(ctx)) throw missingExtension(method);
  }

  router.method('tasks/get', async (ctx) => {
    gate(ctx, 'tasks/get');
    const upstream = await upstreamAnswer(ctx, 'tasks/get');
    if (upstream !== undefined) return upstream;
    const record = await find(ctx, readTaskId(ctx.params));
    return ctx.scope.era === 'modern' ? detailedTask(record) : legacyTask(record);
  });

  router.method('tasks/update', async (ctx) => {
    gate(ctx, 'tasks/update');
    const upstream = await upstreamAnswer(ctx, 'tasks/update');
    if (upstream !== undefined) return upstream;
    const taskId = readTaskId(ctx.params);
    const responses = ctx.params.inputResponses ?? {};
    if (typeof responses !== 'object' || responses === null || Array.isArray(responses)) {
      throw ProtocolError.invalidParams(
        'inputResponses must be an object keyed by the inputRequests keys that tasks/get showed',
      );
    }
    await find(ctx, taskId);
    if (!(await runner.answer(taskId, responses as Record<string, unknown>))) throw unknownTask(taskId);
    return {};
  });

  router.method('tasks/cancel', async (ctx) => {
    gate(ctx, 'tasks/cancel');
    const upstream = await upstreamAnswer(ctx, 'tasks/cancel');
    if (upstream !== undefined) return upstream;
    const taskId = readTaskId(ctx.params);
    await find(ctx, taskId);
    const outcome = await runner.cancel(taskId);
    if (outcome === undefined) throw unknownTask(taskId);
    if (ctx.scope.era === 'modern') return {};
    if (outcome.wasTerminal) {
      throw ProtocolError.invalidParams(
        `Task ${taskId} is already ${outcome.record.status}; only a working or input_required task can be cancelled`,
      );
    }
    return legacyTask(outcome.record);
  });

  // Legacy only: the modern method table does not have it, so the router answers -32601 there.
  router.method('tasks/result', async (ctx) => {
    const upstream = await upstreamAnswer(ctx, 'tasks/result');
    if (upstream !== undefined) return upstream;
    const taskId = readTaskId(ctx.params);
    await find(ctx, taskId);
    const cancellation = ctx.session.begin(ctx.request.id);
    try {
      const record = await runner.settled(taskId, cancellation.signal);
      if (record === undefined) throw unknownTask(taskId);
      if (cancellation.cancelled) return NO_RESPONSE;
      const related = { [RELATED_TASK_META]: { taskId } };
      if (record.result !== undefined) {
        const meta = (record.result._meta ?? {}) as Record<string, unknown>;
        return { ...record.result, _meta: { ...meta, ...related } };
      }
      if (record.error !== undefined) {
        throw new ProtocolError(record.error.code, record.error.message, record.error.data);
      }
      throw ProtocolError.invalidParams(`Task ${taskId} was cancelled before it produced a result`);
    } finally {
      ctx.session.end(ctx.request.id);
    }
  });

  router.method('tasks/list', async (ctx) => {
    const after = ctx.params.cursor === undefined ? undefined : decodeCursor(ctx.params.cursor);
    const page = await store.list(ownerOf(ctx.session), after, pageSize + 1);
    const tasks = page.slice(0, pageSize);
    const result: { tasks: object[]; nextCursor?: string } = { tasks: tasks.map(legacyTask) };
    if (page.length > pageSize) result.nextCursor = encodeCursor(tasks[tasks.length - 1]!.taskId);
    return result;
  });
}
