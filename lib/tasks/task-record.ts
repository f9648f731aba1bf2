/**
 * What a task is, as a store keeps it: era-neutral facts (status, times, the outcome, the input it
 * waits for) that any replica can read back. How a record looks on the wire is the router's
 * business (task-wire.ts); the store never needs to know which era asked.
 */

/** The five statuses both eras share. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

export const TERMINAL_STATUSES: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

export function isTerminal(status: TaskStatus): boolean {
  return TERMINAL_STATUSES.has(status);
}

/** One question a waiting task put to the client (an `inputRequests` entry). */
export interface TaskQuestion {
  method: string;
  params: Record<string, unknown>;
}

export interface TaskRecord {
  taskId: string;
  /** Which era created it: decides how an `isError` result counts (failed in legacy, completed in modern). */
  era: 'legacy' | 'modern';
  /** Who may list it (a legacy session); absent for modern tasks, reached by their unguessable id alone. */
  owner?: string;
  /**
   * The principal that created it (its principalKey: issuer + subject), when the request had one.
   * Only that principal may read, update or cancel it; to any other the task does not exist.
   */
  principal?: string;
  /**
   * The caller it counts against when it has no principal (transports/caller-identity.ts: the
   * client's address, or a connection of its own): the store's per-caller limits use it.
   */
  caller?: string;
  /** The tool it runs, for the server log and statusMessage. */
  tool: string;
  status: TaskStatus;
  statusMessage?: string;
  /** Epoch milliseconds. */
  createdAt: number;
  lastUpdatedAt: number;
  /** How long the task is kept after creation, in ms; null = until the server forgets it. */
  ttlMs: number | null;
  pollIntervalMs: number;
  /** A completed (or, in legacy, an isError) task's CallToolResult. */
  result?: Record<string, unknown>;
  /** A failed task's JSON-RPC error. */
  error?: { code: number; message: string; data?: unknown };
  /** While input_required: the questions still unanswered, by key. */
  inputRequests?: Record<string, TaskQuestion>;
  /** Every answer the task has been given so far, by key (they feed its next attempt). */
  answers?: Record<string, unknown>;
  /** The handler's own state from an explicit inputRequired(...) return, carried to its next attempt. */
  state?: unknown;
  /**
   * The fleet job running the task's current attempt, when its tool runs on the fleet: a replica
   * that finds the task's own replica gone follows this job to its end instead of failing the task.
   */
  fleetJob?: string;
}

/** The fields a change may set; taskId, era, owner, principal and createdAt never change. */
export type TaskChange = Partial<
  Pick<
    TaskRecord,
    'status' | 'statusMessage' | 'result' | 'error' | 'inputRequests' | 'answers' | 'state' | 'fleetJob'
  >
>;
