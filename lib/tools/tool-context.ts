/**
 * The contract between weft and a tool handler: what a handler receives and may return.
 *
 * It is shared by both sides of the thread boundary. Inline handlers get a context built on the
 * event loop; blocking handlers get one built inside a pool worker. Both honour the same promises,
 * so a tool can move between inline and blocking without changing a line of its handler.
 */
import type { PromptsView } from '../prompts/prompts-view.js';
import type { LogLevel } from '../protocol/log-levels.js';
import type { ResourcesView } from '../resources/resources-view.js';
import type { CallToolResult } from './content.js';

// The severities are a protocol fact (both eras name them on the wire); re-exported for handlers.
export { LOG_LEVELS, type LogLevel } from '../protocol/log-levels.js';

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
  /**
   * Asks the user a question through the client (`elicitation/create`) and waits for the answer.
   * Rejects with a message that says so when the client did not declare the `elicitation`
   * capability; a cancel or the deadline still ends the call while it waits.
   * Present for inline tools and for blocking tools in the thread pool (the worker waits while the
   * main thread asks); absent under `isolation: 'process'`. A call made without a client rejects.
   */
  elicit?(params: ElicitParams): Promise<ElicitResult>;
  /** Asks the client's model for a completion (`sampling/createMessage`); same rules as `elicit`. */
  sample?(params: SampleParams): Promise<SampleResult>;
  /** The server's tools: list, find, call, add, remove (a change tells clients with list_changed). */
  tools?(): ToolsView;
  /** The server's resources: list, read, add, remove, announce updates. */
  resources?(): ResourcesView;
  /** The server's prompts: list, get, add, remove. */
  prompts?(): PromptsView;
}

/** `elicitation/create` params: a message and a flat object schema of what to ask for. */
export interface ElicitParams {
  message: string;
  requestedSchema: Record<string, unknown>;
  [extra: string]: unknown;
}

export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
  [extra: string]: unknown;
}

/** `sampling/createMessage` params (messages, maxTokens, and the optional preferences of the spec). */
export interface SampleParams {
  messages: { role: 'user' | 'assistant'; content: unknown }[];
  maxTokens: number;
  [extra: string]: unknown;
}

export interface SampleResult {
  role: 'user' | 'assistant';
  content: unknown;
  model: string;
  stopReason?: string;
  [extra: string]: unknown;
}

export interface ToolsView {
  /** Published descriptors, in name order. */
  list(): object[];
  find(name: string): object | undefined;
  /** Calls a tool of this server as a client would (validation, deadline, result shaping included). */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  add(definition: object): void;
  remove(name: string): boolean;
}

/**
 * Builds `ctx.elicit` and `ctx.sample` over one way of sending a request to the client, so every
 * executor refuses a missing capability with the same words.
 */
export function clientRequestMethods(
  clientCapabilities: Record<string, unknown>,
  request: (method: string, params: Record<string, unknown>) => Promise<unknown>,
): Pick<Required<ToolContext>, 'elicit' | 'sample'> {
  const needs = (capability: string, what: string) => {
    if (clientCapabilities[capability] === undefined) {
      throw new Error(
        `This tool needs to ${what}, but the client did not declare the "${capability}" capability; ` +
          'use a client that supports it',
      );
    }
  };
  return {
    async elicit(params) {
      needs('elicitation', 'ask the user a question (elicitation)');
      return (await request('elicitation/create', params)) as ElicitResult;
    },
    async sample(params) {
      needs('sampling', "ask the client's model for a completion (sampling)");
      return (await request('sampling/createMessage', params)) as SampleResult;
    },
  };
}

/** Raised by `ctx.checkpoint()` once the call is over; handlers should let it propagate. */
export class CallAbandonedError extends Error {
  override readonly name = 'CallAbandonedError';
  constructor(readonly reason: 'timeout' | 'cancelled' | 'shutdown') {
    super(`The call was abandoned (${reason}); its result will not be sent`);
  }
}
