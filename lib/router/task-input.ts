/**
 * How a task that asked questions gets its answers between two attempts, per era. No thread is
 * held meanwhile: the attempt that asked is over.
 * - Legacy: the questions go to the client live, on the session's stream, tagged with the task;
 *   the answers are stored, and the task works again.
 * - 2026-07-28: the task waits `input_required` until tasks/update (on any replica) has answered
 *   every question; it looks at its record on every signal, and every second in case one was lost.
 */
import type { Cancellation } from '../engine/cancellation.js';
import type { TaskChange, TaskRecord } from '../tasks/task-record.js';
import { isTerminal } from '../tasks/task-record.js';
import type { TaskStore } from '../tasks/task-store.js';
import type { Question } from '../tools/client-questions.js';
import type { MethodContext } from './method-table.js';

/** How often a task waiting for input looks at its record even without a signal (a lost message). */
const INPUT_RECHECK_MS = 1_000;

/** What a waiting task exposes so that a signal can wake it. */
export interface WakeableTask {
  readonly cancellation: Cancellation;
  wake: (() => void) | undefined;
}

/** Legacy: asks on the session; resolves every answer so far, or undefined when the task ended. */
export async function askLive(
  ctx: MethodContext,
  questions: Question[],
  earlier: Record<string, unknown>,
  cancellation: Cancellation,
  write: (change: TaskChange) => Promise<TaskRecord | undefined>,
): Promise<Record<string, unknown> | undefined> {
  let replies: unknown[];
  try {
    replies = await Promise.all(
      questions.map(({ method, params }) =>
        ctx.session.request(method, params, cancellation.signal, ctx.sink),
      ),
    );
  } catch (error) {
    if (cancellation.cancelled) return undefined;
    const message = `The client did not answer the task's question: ${(error as Error)?.message ?? String(error)}`;
    await write({
      status: 'failed',
      statusMessage: message,
      result: { content: [{ type: 'text', text: message }], isError: true },
    });
    return undefined;
  }
  const answers = { ...earlier };
  questions.forEach(({ key }, index) => {
    answers[key] = replies[index];
  });
  const written = await write({
    status: 'working',
    statusMessage: undefined,
    inputRequests: undefined,
    answers,
  });
  return written === undefined ? undefined : answers;
}

/** Modern: resolves the answers once none is missing, or undefined when the task ended or was cancelled. */
export async function waitForInput(
  store: TaskStore,
  taskId: string,
  running: WakeableTask,
): Promise<Record<string, unknown> | undefined> {
  for (;;) {
    if (running.cancellation.cancelled) return undefined;
    const record = await store.get(taskId);
    if (record === undefined || isTerminal(record.status)) return undefined;
    if (record.status === 'working') return record.answers ?? {};
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => resolve(), INPUT_RECHECK_MS);
      running.wake = () => {
        clearTimeout(timer);
        running.wake = undefined;
        resolve();
      };
    });
  }
}
