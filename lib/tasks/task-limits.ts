/**
 * How many tasks, and how many bytes of them, one caller and all callers together may have a store
 * keep. A task outlives its request for `ttlMs` (an hour by default) with its whole result, so
 * without a bound 1,000 calls with a 100 kB argument kept +104 MB. At the bound a store first drops
 * the oldest *finished* records (the caller's own for a caller's bound), and only when every
 * record left is still running refuses the new task at creation (-32013 with the limit and
 * `retryAfterMs` in `data`): a task is never created and then failed for want of room.
 *
 * The caller of a task is its principal (issuer + subject), else the caller its request came from
 * (the client's address, caller-identity.ts), else its legacy session, else "anonymous" (a record
 * written before callers were kept). So an anonymous client flooding tasks drops its own finished
 * results, never those of a client on another address.
 */
import { ErrorCode } from '../protocol/error-codes.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import type { TaskRecord } from './task-record.js';

export interface TaskLimits {
  /** Tasks one caller may have kept at once (default 1,000). */
  maxPerCaller?: number;
  /** Bytes of task records (results included) one caller may have kept (default 32 MiB). */
  maxBytesPerCaller?: number;
  /** Tasks kept at once for all callers (default 10,000). */
  maxTasks?: number;
  /** Bytes of task records kept for all callers (default 128 MiB). */
  maxBytes?: number;
}

export const DEFAULT_TASK_LIMITS: Required<TaskLimits> = {
  maxPerCaller: 1_000,
  maxBytesPerCaller: 32 * 1024 * 1024,
  maxTasks: 10_000,
  maxBytes: 128 * 1024 * 1024,
};

const KEYS = Object.keys(DEFAULT_TASK_LIMITS);

/** The limits with their defaults; throws, saying what to fix, on an unknown or malformed one. */
export function taskLimitsOf(limits: TaskLimits | undefined, where: string): Required<TaskLimits> {
  for (const [key, value] of Object.entries(limits ?? {})) {
    if (!KEYS.includes(key))
      throw new TypeError(`${where}: unknown limit "${key}". Known: ${KEYS.join(', ')}`);
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 1)) {
      throw new TypeError(`${where}.${key} must be a whole number of at least 1, got ${value}`);
    }
  }
  return { ...DEFAULT_TASK_LIMITS, ...limits };
}

/** Who a task counts against (see the module comment). */
export function taskCallerOf(record: Pick<TaskRecord, 'principal' | 'owner' | 'caller'>): string {
  if (record.principal !== undefined) return `principal ${record.principal}`;
  if (record.caller !== undefined) return record.caller;
  if (record.owner !== undefined) return `session ${record.owner}`;
  return 'anonymous';
}

/** What a record costs: its JSON size (close to what a shared store keeps, and to the heap's). */
export function recordBytes(record: TaskRecord): number {
  return Buffer.byteLength(JSON.stringify(record));
}

const WHAT: Record<keyof TaskLimits, string> = {
  maxPerCaller: 'tasks kept for each caller',
  maxBytesPerCaller: 'bytes of tasks kept for each caller',
  maxTasks: 'tasks kept on this server',
  maxBytes: 'bytes of tasks kept on this server',
};

/** The refusal of a new task: the limit by its option name, its value, when a retry may pass. */
export function taskLimitError(limit: keyof TaskLimits, max: number, retryAfterMs: number): ProtocolError {
  const after = Math.max(1, Math.ceil(retryAfterMs));
  return new ProtocolError(
    ErrorCode.LimitExceeded,
    `Limit exceeded: the task store's limits.${limit} allows ${max} ${WHAT[limit]}, all still running. No task was created; retry in ${after} ms (or fetch and let finished tasks expire).`,
    { limit, scope: 'tasks', max, retryAfterMs: after },
  );
}
