/**
 * How a stored task looks on the wire in each era. The 2025-11-25 era calls the fields `ttl` and
 * `pollInterval` and wraps a new task as `{task}`; the 2026-07-28 extension says `ttlMs` and
 * `pollIntervalMs`, answers a new task flat (`resultType: "task"`, added by ModernAnswers through
 * CreatedTaskAnswer) and inlines the result, error or pending input in `tasks/get`.
 */
import type { TaskRecord } from '../tasks/task-record.js';

/** A tools/call that became a task, answered in the modern era as the flat Task fields. */
export class CreatedTaskAnswer {
  constructor(readonly fields: Record<string, unknown>) {}
}

function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

/** The 2025-11-25 `Task`. */
export function legacyTask(record: TaskRecord): Record<string, unknown> {
  const task: Record<string, unknown> = {
    taskId: record.taskId,
    status: record.status,
    createdAt: iso(record.createdAt),
    lastUpdatedAt: iso(record.lastUpdatedAt),
    ttl: record.ttlMs,
    pollInterval: record.pollIntervalMs,
  };
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage;
  return task;
}

/** The 2026-07-28 `Task` (what a CreateTaskResult carries). */
export function modernTask(record: TaskRecord): Record<string, unknown> {
  const task: Record<string, unknown> = {
    taskId: record.taskId,
    status: record.status,
    createdAt: iso(record.createdAt),
    lastUpdatedAt: iso(record.lastUpdatedAt),
    ttlMs: record.ttlMs,
    pollIntervalMs: record.pollIntervalMs,
  };
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage;
  return task;
}

/** The 2026-07-28 `DetailedTask` of tasks/get: the Task plus what its status has to show. */
export function detailedTask(record: TaskRecord): Record<string, unknown> {
  const task = modernTask(record);
  if (record.status === 'completed' && record.result !== undefined) task.result = record.result;
  if (record.status === 'failed' && record.error !== undefined) task.error = record.error;
  if (record.status === 'input_required' && record.inputRequests !== undefined)
    task.inputRequests = record.inputRequests;
  return task;
}
