/**
 * What an `McpClient` accepts: the options of the client itself, and those of one request or tool
 * call. Checked when the client is made, so a misspelt option or log level is refused at once with
 * a message listing what is allowed, not silently ignored.
 */
import { LOG_LEVELS, type LogLevel } from '../protocol/log-levels.js';
import type { ProgressUpdate } from './call-results.js';
import { checkProtocolChoice, type ProtocolChoice } from './era-handshake.js';
import type { InputHandlers } from './input-answers.js';
import type { TaskOptions } from './task-follower.js';

export interface McpClientOptions extends InputHandlers {
  /** Sent as clientInfo (default weft-client). */
  name?: string;
  version?: string;
  /** Which era to speak: probe (`auto`, the default), either era, or one exact version. */
  protocol?: ProtocolChoice;
  /** Default per-request timeout in ms (default 60000; 0 = none). */
  timeoutMs?: number;
  /** Ask for the server's log messages at this level and above (modern: per request; legacy: setLevel). */
  logLevel?: LogLevel;
  /** Hears `notifications/message`. */
  onLog?: (params: Record<string, unknown>) => void;
  /** Declare the tasks extension (modern) so the server may answer a call with a task. */
  tasks?: boolean;
  /** How often to poll a task when the server suggests nothing (ms, default 500). */
  pollIntervalMs?: number;
  /** Hears the end of the connection (error: why, when it was not close()). */
  onClose?: (error: Error | undefined) => void;
  /**
   * Legacy era: the server lost the session (HTTP 404: it restarted or expired it) and the client
   * started a new one. Listings were dropped; subscriptions made on the old session are gone.
   */
  onSessionRenewed?: () => void;
}

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Hears the request's progress notifications (a progress token is sent with it). */
  onprogress?: (progress: ProgressUpdate) => void;
  /** Extra `_meta` for the request (a progress token is added by onprogress). */
  meta?: Record<string, unknown>;
  /** Answers this request's `input_required` rounds instead of the client's own handlers. */
  input?: InputHandlers;
  /**
   * `'return'`: hand an `input_required` result back instead of answering it (a gateway relays the
   * question to its own client, whose retry brings `inputResponses` and `requestState` back).
   */
  rounds?: 'answer' | 'return';
  /**
   * Modern: the client capabilities this one request declares instead of the client's own (a
   * gateway declares its caller's, so the upstream asks only what that caller can answer).
   */
  capabilities?: Record<string, unknown>;
}

export interface ToolCallOptions extends CallOptions, TaskOptions {}

const KNOWN_OPTIONS = new Set([
  'name',
  'version',
  'protocol',
  'timeoutMs',
  'logLevel',
  'onLog',
  'tasks',
  'pollIntervalMs',
  'onClose',
  'onSessionRenewed',
  'onElicitation',
  'onSampling',
  'roots',
]);

/** Throws a TypeError for an unknown option, protocol choice or log level. */
export function checkClientOptions(options: McpClientOptions): void {
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(key)) {
      throw new TypeError(`McpClient: unknown option "${key}"; known: ${[...KNOWN_OPTIONS].join(', ')}`);
    }
  }
  checkProtocolChoice(options.protocol);
  if (options.logLevel !== undefined && !(LOG_LEVELS as readonly string[]).includes(options.logLevel)) {
    throw new TypeError(`McpClient: logLevel must be one of ${LOG_LEVELS.join(', ')}`);
  }
}
