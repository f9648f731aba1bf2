/**
 * Runs tool calls as tasks: the call is stored before it is answered, runs on the engine like any
 * call, and writes its outcome to the task store instead of to a response. This file owns a
 * replica's tasks (start, cancel, answers, signals, writes); what one task does while it runs, its
 * attempts and rounds of input, is task-attempts.ts.
 *
 * Why it is built this way:
 * - A task has a Cancellation of its own, not its request's: the request that created it ends at
 *   once, and the task outlives it (and its connection). tasks/cancel, from any replica, reaches the
 *   runner as a store signal and cancels it exactly like a call's cancel: the flag is raised, the
 *   thread terminated or the process killed. The store refuses every change to a terminal record,
 *   so whatever the handler produces after a cancel changes nothing.
 * - Input during a task never holds a thread: every attempt runs with a book of answers, a
 *   question the book lacks ends the attempt (as in a multi-round request), and the task waits
 *   `input_required` with nothing running. Modern clients answer with tasks/update (stored, then a
 *   signal); a legacy session is asked live with requests tagged with the task, then the next
 *   attempt runs with every answer so far.
 * - Statuses follow the era that created the task: an `isError` result is `failed` in legacy and
 *   `completed` in modern; a JSON-RPC failure (a dead worker, a full queue) is `failed` with `error`.
 * - A task whose tool runs on the fleet records the job carrying its attempt (`fleetJob`). If this
 *   replica stops, the job goes on on its worker, and another replica adopts the task (the store
 *   offers it once the lease lapses): it follows the job to its end and stores the outcome.
 */
import { randomUUID } from 'node:crypto';
import { principalKey } from '../auth/principal.js';
import { Cancellation } from '../engine/cancellation.js';
import type { Engine } from '../engine/engine.js';
import type { CallPeer } from '../engine/engine-call.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { notification } from '../protocol/json-rpc.js';
import type { TaskChange, TaskRecord } from '../tasks/task-record.js';
import { isTerminal } from '../tasks/task-record.js';
import type { TaskSignal, TaskStore } from '../tasks/task-store.js';
import type { RegisteredTool } from '../tools/registered-tool.js';
import type { CallerKeys } from './caller-keys.js';
import type { MethodContext } from './method-table.js';
import type { Session } from './session.js';
import { adoptTask } from './task-adoption.js';
import { type RunningTask, runTaskAttempts, SILENT } from './task-attempts.js';
import { storeAnswers } from './task-input.js';
import { TaskWaiters } from './task-waiters.js';
import { legacyTask } from './task-wire.js';

export interface TaskRunnerOptions {
  store: TaskStore;
  engine: Engine;
  /** The server-wide deadline (0 = none); each attempt of a task has it whole. */
  timeoutMs: number;
  /** How long a task is kept after creation (null: no limit). A legacy client may ask for less. */
  ttlMs: number | null;
  /** The polling interval suggested to clients. */
  pollIntervalMs: number;
  logError: (message: string) => void;
  peer?: (ctx: MethodContext) => CallPeer;
  /** The registered tool of this name: to adopt a task whose replica stopped (task-adoption.ts). */
  toolNamed?: (name: string) => RegisteredTool | undefined;
  /** Called on every replica when a task's record changed (for `notifications/tasks`). */
  onChange?: (record: TaskRecord) => void;
  /** Whom each task's call is for (fair admission, per-caller limits); a task counts while it runs. */
  callers?: CallerKeys;
}

/** Who may list a legacy session's tasks: an id per session, never shown to anyone. */
const owners = new WeakMap<Session, string>();
export function ownerOf(session: Session): string {
  let owner = owners.get(session);
  if (owner === undefined) {
    owner = session.id ?? randomUUID();
    owners.set(session, owner);
  }
  return owner;
}

export class TaskRunner {
  readonly #options: TaskRunnerOptions;
  readonly #running = new Map<string, RunningTask>();
  /** tasks/result calls on this replica waiting for a task to end. */
  readonly #waiters: TaskWaiters;
  readonly #unsubscribe: () => void;

  constructor(options: TaskRunnerOptions) {
    this.#options = options;
    this.#waiters = new TaskWaiters(options.store);
    this.#unsubscribe = options.store.subscribe((signal) => this.#onSignal(signal));
    options.store.onOrphan?.((record) =>
      adoptTask(
        {
          store: options.store,
          engine: options.engine,
          events: SILENT,
          logError: options.logError,
          toolNamed: options.toolNamed,
          running: this.#running,
          write: (adopted, change) => this.#write(adopted, undefined, change),
        },
        record,
      ),
    );
  }

  get store(): TaskStore {
    return this.#options.store;
  }

  /** How many tasks run on this replica now (running or waiting for input). */
  get runningCount(): number {
    return this.#running.size;
  }

  /**
   * Stores a new task for `tool(args)` and starts it; resolves with the record once any replica
   * could read it. `inputs` are the answers gathered before the task (multi-round requests).
   */
  async start(
    ctx: MethodContext,
    tool: RegisteredTool,
    args: Record<string, unknown>,
    inputs?: { answers: Record<string, unknown>; state?: unknown },
  ): Promise<TaskRecord> {
    const now = Date.now();
    const era = ctx.scope.era;
    const record: TaskRecord = {
      taskId: randomUUID(),
      era,
      tool: tool.name,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: this.#ttlFor(ctx),
      pollIntervalMs: this.#options.pollIntervalMs,
      answers: inputs?.answers ?? {},
    };
    if (era === 'legacy') record.owner = ownerOf(ctx.session);
    if (ctx.scope.principal !== undefined) record.principal = principalKey(ctx.scope.principal);
    else if (ctx.scope.caller !== undefined) record.caller = ctx.scope.caller;
    if (inputs?.state !== undefined) record.state = inputs.state;
    await this.#options.store.create(record);
    const running: RunningTask = { cancellation: new Cancellation(), wake: undefined };
    this.#running.set(record.taskId, running);
    this.#options.store.hold(record.taskId);
    // With a shared store, a fleet task is answered once its job is in Redis and its record names
    // it: a replica that dies after answering leaves a task another replica can adopt.
    const { store, engine } = this.#options;
    const durable =
      store.onOrphan !== undefined && tool.blocking && engine.placementOf(tool) === 'fleet'
        ? new Promise<void>((resolve) => {
            running.jobRecorded = resolve;
          })
        : undefined;
    const ran = runTaskAttempts(
      { ...this.#options, write: (written, writeCtx, change) => this.#write(written, writeCtx, change) },
      record,
      ctx,
      tool,
      args,
      running,
    )
      .catch((error) => {
        this.#options.logError(
          `weft: task ${record.taskId} (${tool.name}) failed: ${(error as Error)?.stack}`,
        );
        return this.#write(record, ctx, {
          status: 'failed',
          statusMessage: 'Internal error',
          error: { code: ErrorCode.InternalError, message: 'Internal error' },
        });
      })
      .finally(() => {
        this.#running.delete(record.taskId);
        running.jobRecorded?.();
        if (!running.handedOver) this.#options.store.release(record.taskId);
      });
    if (durable) await Promise.race([durable, ran]);
    return record;
  }

  /**
   * Cancels a task from any replica: the record turns `cancelled` (for good), then the replica
   * running it is told to stop the work. Resolves the record as it now stands (undefined: unknown).
   */
  async cancel(taskId: string): Promise<{ record: TaskRecord; wasTerminal: boolean } | undefined> {
    const { store } = this.#options;
    const before = await store.get(taskId);
    if (before === undefined) return undefined;
    if (isTerminal(before.status)) return { record: before, wasTerminal: true };
    const after = await store.update(taskId, {
      status: 'cancelled',
      statusMessage: 'Cancelled by the client',
      inputRequests: undefined,
    });
    await store.signal({ kind: 'cancel', taskId });
    if (after !== undefined) await this.#changed(taskId);
    this.#waiters.wake(taskId);
    const record = after ?? (await store.get(taskId)) ?? before;
    return { record, wasTerminal: after === undefined };
  }

  /**
   * Stores a client's answers for a task waiting for input (tasks/update). Only answers to what
   * the task asks are taken; once none is missing, the task works again and its replica is told.
   */
  answer(taskId: string, responses: Record<string, unknown>): Promise<boolean> {
    return storeAnswers(this.#options.store, taskId, responses, () => this.#changed(taskId));
  }

  /** Resolves once `taskId` is terminal (or gone), looking at the store at least every pollIntervalMs. */
  settled(taskId: string, signal: AbortSignal): Promise<TaskRecord | undefined> {
    return this.#waiters.settled(taskId, signal);
  }

  /** Shutdown: every task still running here is stopped and ends failed, saying why. */
  stopAll(): void {
    for (const running of this.#running.values()) {
      running.cancellation.cancel('shutdown');
      running.wake?.();
    }
  }

  close(): void {
    this.#unsubscribe();
  }

  /** Writes a change (nothing, if the task is already terminal) and tells who waits for it. */
  async #write(
    record: TaskRecord,
    ctx: MethodContext | undefined,
    change: TaskChange,
  ): Promise<TaskRecord | undefined> {
    const written = await this.#options.store.update(record.taskId, change);
    if (written === undefined) return undefined;
    if (isTerminal(written.status)) this.#waiters.wake(record.taskId);
    await this.#changed(record.taskId);
    // A legacy session hears each status change (notifications/tasks/status), while it is open.
    if (record.era === 'legacy' && ctx && !ctx.session.closed) {
      ctx.session.sink.send(notification('notifications/tasks/status', legacyTask(written)));
    }
    return written;
  }

  /** Tells every replica that `taskId` changed, when anyone listens for that. */
  async #changed(taskId: string): Promise<void> {
    if (this.#options.onChange === undefined) return;
    await this.#options.store.signal({ kind: 'changed', taskId }).catch(() => {});
  }

  #onSignal(signal: TaskSignal): void {
    if (signal.kind === 'changed') {
      const { onChange } = this.#options;
      if (onChange === undefined) return;
      this.#options.store
        .get(signal.taskId)
        .then((record) => record && onChange(record))
        .catch(() => {});
      return;
    }
    const running = this.#running.get(signal.taskId);
    if (signal.kind === 'cancel') {
      this.#waiters.wake(signal.taskId);
      running?.cancellation.cancel('cancelled');
    }
    running?.wake?.();
  }

  #ttlFor(ctx: MethodContext): number | null {
    const server = this.#options.ttlMs;
    const asked = (ctx.params.task as { ttl?: unknown } | undefined)?.ttl;
    if (ctx.scope.era !== 'legacy' || typeof asked !== 'number' || !(asked > 0)) return server;
    return server === null ? Math.floor(asked) : Math.min(server, Math.floor(asked));
  }
}
