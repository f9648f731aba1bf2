/**
 * How a task that asked questions gets its answers between two attempts, per era. No thread is
 * held meanwhile: the attempt that asked is over.
 * - Legacy: the questions go to the client live, on the session's stream, tagged with the task;
 *   the answers are stored, and the task works again.
 * - 2026-07-28: the task waits `input_required` until tasks/update (on any replica, storeAnswers) has answered
 *   every question; it looks at its record on every signal, and every second in case one was lost.
 */
import type { Cancellation } from '../engine/cancellation.js';
import type { TaskChange, TaskQuestion, TaskRecord } from '../tasks/task-record.js';
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

/**
 * Modern, tasks/update: stores the answers to what the task asks (others are ignored); once none
 * is missing the task works again and its replica is signalled. False when the task is unknown.
 */
export async function storeAnswers(
  store: TaskStore,
  taskId: string,
  responses: Record<string, unknown>,
  changed: () => Promise<void>,
): Promise<boolean> {
  const record = await store.get(taskId);
  if (record === undefined) return false;
  if (record.status !== 'input_required') return true;
  const pending = record.inputRequests ?? {};
  const answers = { ...(record.answers ?? {}) };
  const remaining: Record<string, TaskQuestion> = { ...pending };
  let taken = 0;
  for (const [key, answer] of Object.entries(responses)) {
    if (!(key in pending)) continue;
    answers[key] = answer;
    delete remaining[key];
    taken++;
  }
  if (taken === 0) return true;
  const done = Object.keys(remaining).length === 0;
  await store.update(
    taskId,
    done
      ? { answers, inputRequests: undefined, status: 'working', statusMessage: undefined }
      : { answers, inputRequests: remaining },
  );
  if (done) await store.signal({ kind: 'input', taskId });
  await changed();
  return true;
}
