/**
 * A 2025-11-25 client's task on a 2026-07-28 upstream: the gateway asks the upstream for a task
 * in the modern way (the tasks extension) and shows it to the legacy client in the legacy way.
 *
 * - The Task: `ttlMs`/`pollIntervalMs` become `ttl`/`pollInterval`; the inlined result, error and
 *   questions of the modern `tasks/get` are left out (the legacy era reads them by tasks/result).
 * - tasks/result: polls the upstream's tasks/get at its pollIntervalMs until the task ends; an
 *   `input_required` task's questions are put to the legacy client live (server-to-client requests,
 *   which is how that era asks during tasks/result) and answered upstream with tasks/update.
 * - tasks/cancel: refuses a terminal task (-32602), as the legacy era does, else cancels upstream
 *   and answers the Task.
 * Upstream errors pass through with their code, message and data.
 */
import { abortableSleep } from '../abortable-sleep.js';
import { McpError } from '../client/client-errors.js';
import { answerInputRequests, type InputHandlers } from '../client/input-answers.js';
import type { McpClient } from '../client/mcp-client.js';
import { RELATED_TASK_META } from '../protocol/eras.js';
import { ProtocolError } from '../protocol/protocol-error.js';

type Params = Record<string, unknown>;

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** The legacy `Task` for a modern Task or DetailedTask. */
export function legacyTaskOf(modern: Params): Params {
  const task: Params = {
    taskId: modern.taskId,
    status: modern.status,
    createdAt: modern.createdAt,
    lastUpdatedAt: modern.lastUpdatedAt,
    ttl: modern.ttlMs ?? null,
    pollInterval: modern.pollIntervalMs,
  };
  if (modern.statusMessage !== undefined) task.statusMessage = modern.statusMessage;
  return task;
}

export class LegacyTaskBridge {
  readonly #client: McpClient;
  /** What the gateway declares upstream for these tasks: the caller's capabilities plus the extension. */
  readonly #capabilities: Params;

  constructor(client: McpClient, capabilities: Params) {
    this.#client = client;
    this.#capabilities = capabilities;
  }

  async #request(method: string, params: Params, signal: AbortSignal): Promise<Params> {
    try {
      const {
        resultType: _type,
        _meta,
        ...answer
      } = await this.#client.request(method, params, {
        signal,
        capabilities: this.#capabilities,
        rounds: 'return',
      });
      return answer;
    } catch (error) {
      if (error instanceof McpError) throw new ProtocolError(error.code, error.message, error.data);
      throw error;
    }
  }

  async get(taskId: string, signal: AbortSignal): Promise<Params> {
    return legacyTaskOf(await this.#request('tasks/get', { taskId }, signal));
  }

  async cancel(taskId: string, signal: AbortSignal): Promise<Params> {
    const before = await this.#request('tasks/get', { taskId }, signal);
    if (TERMINAL.has(before.status as string)) {
      throw ProtocolError.invalidParams(
        `Task ${taskId} is already ${before.status}; only a working or input_required task can be cancelled`,
      );
    }
    await this.#request('tasks/cancel', { taskId }, signal);
    return this.get(taskId, signal);
  }

  /** Waits for the task's end and answers the call's own result (or throws its error). */
  async result(taskId: string, signal: AbortSignal, handlers: InputHandlers): Promise<Params> {
    for (;;) {
      const task = await this.#request('tasks/get', { taskId }, signal);
      switch (task.status) {
        case 'completed': {
          const result = (task.result ?? {}) as Params;
          const meta = (result._meta ?? {}) as Params;
          return { ...result, _meta: { ...meta, [RELATED_TASK_META]: { taskId } } };
        }
        case 'failed': {
          const error = (task.error ?? {}) as { code?: number; message?: string; data?: unknown };
          throw new ProtocolError(error.code ?? -32603, error.message ?? `Task ${taskId} failed`, error.data);
        }
        case 'cancelled':
          throw ProtocolError.invalidParams(`Task ${taskId} was cancelled before it produced a result`);
        case 'input_required': {
          const inputResponses = await answerInputRequests(handlers, task.inputRequests);
          await this.#request('tasks/update', { taskId, inputResponses }, signal);
          continue;
        }
      }
      const wait = typeof task.pollIntervalMs === 'number' ? Math.min(task.pollIntervalMs, 5_000) : 500;
      await abortableSleep(wait, signal);
    }
  }
}
