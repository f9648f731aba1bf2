/**
 * The contract between weft and a tool handler: what a handler receives and may return.
 *
 * It is shared by both sides of the thread boundary. Inline handlers get a context built on the
 * event loop; blocking handlers get one built inside a pool worker. Both honour the same promises,
 * so a tool can move between inline and blocking without changing a line of its handler.
 */

/** Syslog severities used by `logging/setLevel` and `notifications/message`, least severe first. */
export const LOG_LEVELS = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface ToolContext {
  /** Aborts when the call's deadline passes or the client cancels it. */
  readonly signal: AbortSignal;
  /** The absolute deadline (ms since the epoch), or undefined when the call has none. */
  readonly deadline: number | undefined;
  /**
   * Throws when the call has been abandoned. Cheap enough to call in a hot loop: inside a worker it
   * reads a shared flag, with no message round trip.
   */
  checkpoint(): void;
  /** Reports progress; sent only when the client asked for it, only when it increases. */
  progress(progress: number, total?: number, message?: string): void;
  /** Sends a log message to the client, if its `logging/setLevel` lets the level through. */
  log(level: LogLevel, data: unknown): void;
}

/** Raised by `ctx.checkpoint()` once the call is over; handlers should let it propagate. */
export class CallAbandonedError extends Error {
  override readonly name = 'CallAbandonedError';
  constructor(readonly reason: 'timeout' | 'cancelled' | 'shutdown') {
    super(`The call was abandoned (${reason}); its result will not be sent`);
  }
}
