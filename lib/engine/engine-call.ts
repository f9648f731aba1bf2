/**
 * One tool call as the engine sees it: a validated tool and arguments, a budget, a way to be
 * cancelled, and where its progress and log events go. No JSON-RPC in sight.
 */
import type { RegisteredTool } from '../tools/registered-tool.js';
import type { LogLevel } from '../tools/tool-context.js';

export interface CallEvents {
  /** Present only when the client asked for progress (a progressToken). */
  progress?: (progress: number, total?: number, message?: string) => void;
  log: (level: LogLevel, data: unknown) => void;
  /** Index into LOG_LEVELS of the least severe level the client wants (LOG_LEVELS.length = none). */
  minLogLevel: number;
}

export interface EngineCall {
  tool: RegisteredTool;
  args: Record<string, unknown>;
  /** The effective deadline in ms from now; 0 = none. */
  budgetMs: number;
  /** Aborted with reason 'cancelled' (client) or 'shutdown' (server stopping). */
  signal: AbortSignal;
  events: CallEvents;
}

export function cancelReasonOf(signal: AbortSignal): 'cancelled' | 'shutdown' {
  return signal.reason === 'shutdown' ? 'shutdown' : 'cancelled';
}
