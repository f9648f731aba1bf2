/**
 * Following a tool call that became a task, to its end, so `callTool` answers with the result either
 * way. Modern era (the tasks extension): the call answered `resultType: "task"`; the client polls
 * `tasks/get` at the task's `pollIntervalMs`, answers `input_required` with the registered handlers
 * through `tasks/update` (each question once: keys are unique over a task's life), and reads the
 * result, or the error, from the detailed task. Legacy era (2025-11-25 core tasks): the call
 * answered `{task}`; `tasks/result` blocks until the end, the server's questions arriving meanwhile
 * as ordinary server requests. Either way an aborted signal becomes `tasks/cancel`.
 */
import { McpError } from './client-errors.js';

type Params = Record<string, unknown>;

export interface TaskOptions {
  /** Legacy era: ask for the call to run as a task (`task: {ttl}`); modern: see the client's `tasks`. */
  task?: boolean | { ttlMs?: number };
  /** Hears the task as soon as it exists (its id, to cancel or look it up elsewhere). */
  onTaskCreated?: (task: Params) => void;
  /** Overrides the poll interval (modern era). */
  pollIntervalMs?: number;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface TaskPort {
  era: 'legacy' | 'modern';
  pollIntervalMs: number;
  request(
    method: string,
    params: Params,
    options: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<Params>;
  answer(inputRequests: unknown): Promise<Params>;
}

export async function followTask(port: TaskPort, result: Params, options: TaskOptions): Promise<Params> {
  if (port.era === 'modern' && result.resultType === 'task') return followModern(port, result, options);
  const task = result.task as Params | undefined;
  if (port.era === 'legacy' && task && typeof task.taskId === 'string' && !('content' in result)) {
    return followLegacy(port, task, options);
  }
  return result;
}

async function followModern(port: TaskPort, created: Params, options: TaskOptions): Promise<Params> {
  const taskId = String(created.taskId);
  options.onTaskCreated?.(created);
  const answered = new Set<string>();
  let task = created;
  const { signal } = options;
  try {
    while (true) {
      const status = String(task.status);
      if (status === 'completed') return (task.result as Params) ?? {};
      if (status === 'failed') {
        const error = (task.error ?? {}) as { code?: number; message?: string; data?: unknown };
        throw new McpError(error.code ?? -32603, error.message ?? `task ${taskId} failed`, error.data);
      }
      if (status === 'cancelled') throw new McpError(-32603, `task ${taskId} was cancelled by the server`);
      if (status === 'input_required' && task.inputRequests) {
        const fresh = Object.fromEntries(
          Object.entries(task.inputRequests as Params).filter(([key]) => !answered.has(key)),
        );
        if (Object.keys(fresh).length > 0) {
          const inputResponses = await port.answer(fresh);
          for (const key of Object.keys(fresh)) answered.add(key);
          await port.request('tasks/update', { taskId, inputResponses }, { signal });
        }
      }
      const interval =
        options.pollIntervalMs ??
        (typeof task.pollIntervalMs === 'number' ? task.pollIntervalMs : port.pollIntervalMs);
      await sleep(Math.max(1, interval), signal);
      task = await port.request('tasks/get', { taskId }, { signal });
    }
  } catch (error) {
    if (signal?.aborted) await cancelQuietly(port, taskId);
    throw error;
  }
}

async function followLegacy(port: TaskPort, task: Params, options: TaskOptions): Promise<Params> {
  const taskId = String(task.taskId);
  options.onTaskCreated?.(task);
  try {
    return await port.request(
      'tasks/result',
      { taskId },
      { signal: options.signal, timeoutMs: options.timeoutMs ?? 0 },
    );
  } catch (error) {
    if (options.signal?.aborted) await cancelQuietly(port, taskId);
    throw error;
  }
}

async function cancelQuietly(port: TaskPort, taskId: string): Promise<void> {
  await port.request('tasks/cancel', { taskId }, {}).catch(() => {});
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
