/**
 * The contract between weft and a tool handler: what a handler receives and may return.
 *
 * It is shared by both sides of the thread boundary. Inline handlers get a context built on the
 * event loop; blocking handlers get one built inside a pool worker. Both honour the same promises,
 * so a tool can move between inline and blocking without changing a line of its handler.
 */
import type { Principal } from '../auth/principal.js';
import type { PromptsView } from '../prompts/prompts-view.js';
import type { LogLevel } from '../protocol/log-levels.js';
import type { ResourcesView } from '../resources/resources-view.js';
import { type AskOptions, QUESTION_METHODS, type QuestionMethod } from './client-questions.js';
import type { CallToolResult } from './content.js';
import type { ToolDescriptor } from './registered-tool.js';

// The severities are a protocol fact (both eras name them on the wire); re-exported for handlers.
export { LOG_LEVELS, type LogLevel } from '../protocol/log-levels.js';
export type { AskOptions } from './client-questions.js';

export interface ToolContext {
  /** Aborts when the call's deadline passes or the client cancels it. */
  readonly signal: AbortSignal;
  /** The absolute deadline (ms since the epoch), or undefined when the call has none. */
  readonly deadline: number | undefined;
  /**
   * Who is calling: the frozen Principal (subject, issuer, clientId, scopes, expiresAt, claims) the
   * transport's auth hook vouched for; undefined without auth. The same inline, in a pool thread or
   * process, on a fleet worker, in a task, and in calls made through ctx.tools().call.
   */
  readonly auth?: Principal | undefined;
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
   * Rejects with a MissingClientCapabilityError when the request's client did not declare the
   * `elicitation` capability. In a legacy session this is a request sent to the client; in a
   * 2026-07-28 request the attempt ends with `input_required` and the handler runs again from the
   * start once the client answered (already-asked questions then return their answers at once, in
   * order): do expensive work after the questions, or use the explicit form (`inputRequired`).
   * A cancel or the deadline still ends the call while it waits. A call made without a client rejects.
   * From a pool thread or process the question travels to the main thread, which asks the client.
   */
  elicit?(params: ElicitParams, options?: AskOptions): Promise<ElicitResult>;
  /** Asks the client's model for a completion (`sampling/createMessage`); same rules as `elicit`. */
  sample?(params: SampleParams, options?: AskOptions): Promise<SampleResult>;
  /** Asks the client for its roots (`roots/list`); same rules as `elicit`. */
  roots?(options?: AskOptions): Promise<RootsResult>;
  /**
   * The answers the client gave in this request's earlier rounds, by key (the explicit form reads
   * them; `elicit`/`sample`/`roots` find theirs without it). Empty on a first round.
   */
  readonly inputResponses?: Readonly<Record<string, unknown>>;
  /**
   * The state this handler returned with `inputRequired(...)` on the previous round, verified by the
   * server (it cannot be forged or moved to another call); undefined on a first round.
   */
  readonly requestState?: unknown;
  /**
   * The server's tools: list, find, findMany, call, callAll, add, remove (a change tells clients
   * with list_changed). The same members inline, in a pool thread and in a pool process.
   */
  tools(): ToolsView;
  /** The server's resources: list, read, isSubscribed, add, remove, notifyUpdated. */
  resources(): ResourcesView;
  /** The server's prompts: list, get, add, remove. */
  prompts(): PromptsView;
}

/**
 * What a prompt's `get` and a resource reader's `read` may ask the client, with the same rules as a
 * tool's `ctx.elicit` / `ctx.sample` / `ctx.roots` (absent when the server itself reads, with no client).
 */
export type ClientAsking = Pick<
  ToolContext,
  'elicit' | 'sample' | 'roots' | 'inputResponses' | 'requestState' | 'auth'
>;

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

/** `roots/list` result: the filesystem roots the client exposes. */
export interface RootsResult {
  roots: { uri: string; name?: string; [extra: string]: unknown }[];
  [extra: string]: unknown;
}

/**
 * `ctx.tools()`: the server's tools seen from inside a call. Every member returns a promise, so a
 * handler reads the same way inline, in a pool thread and in a pool process (where each member is a
 * message to the main thread and back).
 */
export interface ToolsView {
  /**
   * Published descriptors, in name order, those the caller's scopes reach (as its own tools/list);
   * with `tags`, only tools carrying at least one of them.
   */
  list(filter?: { tags?: readonly string[] }): Promise<ToolDescriptor[]>;
  find(name: string): Promise<ToolDescriptor | undefined>;
  /** The descriptors of the named tools that exist, in the order asked (missing names are skipped). */
  findMany(names: readonly string[]): Promise<ToolDescriptor[]>;
  /** Calls a tool of this server as a client would (validation, deadline, result shaping included). */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /**
   * Calls several tools at once. Each call settles on its own: one that fails leaves the others
   * running, and its entry carries the error; the list is in the order of `calls`.
   */
  callAll(calls: readonly ToolCallRequest[]): Promise<ToolCallOutcome[]>;
  /**
   * Registers a tool (clients are told with list_changed). From a pool thread or process only a
   * module-defined tool can be added (`blocking: true, module: ...`): a handler function cannot be
   * sent to the main thread.
   */
  add(definition: object): Promise<void>;
  remove(name: string): Promise<boolean>;
}

/** One call of `ctx.tools().callAll`. */
export interface ToolCallRequest {
  name: string;
  arguments?: Record<string, unknown>;
}

/** How one call of `ctx.tools().callAll` ended: its result, or the error that stopped it. */
export type ToolCallOutcome =
  | { name: string; ok: true; result: CallToolResult }
  | { name: string; ok: false; error: Error };

/**
 * Raised by `ctx.elicit` / `ctx.sample` / `ctx.roots` when the request's client did not declare the
 * capability the question needs. A handler may catch it and do without; uncaught, the call fails
 * with it (a tool error in a legacy session, -32021 naming the capability in a 2026-07-28 request).
 */
export class MissingClientCapabilityError extends Error {
  override readonly name = 'MissingClientCapabilityError';
  constructor(
    readonly capability: string,
    what: string,
  ) {
    super(
      `This tool needs to ${what}, but the client did not declare the "${capability}" capability; ` +
        'use a client that supports it',
    );
  }
}

const WHAT: Record<QuestionMethod, string> = {
  'elicitation/create': 'ask the user a question (elicitation)',
  'sampling/createMessage': "ask the client's model for a completion (sampling)",
  'roots/list': "read the client's roots (roots/list)",
};

/** Sends one question to the client, live or from a book of answers (client-questions.ts). */
export type AskClient = (
  method: QuestionMethod,
  params: Record<string, unknown>,
  options?: AskOptions,
) => Promise<unknown>;

/**
 * Builds `ctx.elicit`, `ctx.sample` and `ctx.roots` over one way of asking the client, so every
 * executor refuses a missing capability with the same error.
 */
export function clientRequestMethods(
  clientCapabilities: Record<string, unknown>,
  ask: AskClient,
): Pick<Required<ToolContext>, 'elicit' | 'sample' | 'roots'> {
  const askFor = (method: QuestionMethod, params: Record<string, unknown>, options?: AskOptions) => {
    const { capability } = QUESTION_METHODS[method];
    if (clientCapabilities[capability] === undefined) {
      return Promise.reject(new MissingClientCapabilityError(capability, WHAT[method]));
    }
    return ask(method, params, options);
  };
  return {
    elicit: (params, options) => askFor('elicitation/create', params, options) as Promise<ElicitResult>,
    sample: (params, options) => askFor('sampling/createMessage', params, options) as Promise<SampleResult>,
    roots: (options) => askFor('roots/list', {}, options) as Promise<RootsResult>,
  };
}

/** Raised by `ctx.checkpoint()` once the call is over; handlers should let it propagate. */
export class CallAbandonedError extends Error {
  override readonly name = 'CallAbandonedError';
  constructor(readonly reason: 'timeout' | 'cancelled' | 'shutdown' | 'input-required') {
    super(`The call was abandoned (${reason}); its result will not be sent`);
  }
}
