/**
 * The exact (sealed) registration of a tool whose schemas and answers belong to another server:
 * what `server.mount` publishes for an upstream's tool.
 *
 * An exact tool is published with the upstream's descriptor verbatim, and its calls skip weft's
 * own argument check, result shaping, output check and framework errors: the upstream validates,
 * and its answer, errors included, passes through as it is. Because that bypasses every guarantee
 * weft gives an ordinary tool, no tool option can ask for it: the registry makes an exact tool only
 * when handed `EXACT_SEAL`, which lives here and is not exported by any public entry of the package
 * (`weft`, `weft-mcp/tool`, `weft-mcp/client`), so an ordinary handler cannot forge one.
 */
import type { ToolDescriptor } from './registered-tool.js';

/** The seal `ToolRegistry.addExact` demands; only the gateway room imports it. */
export const EXACT_SEAL: unique symbol = Symbol('weft.exact-tool-registration');

/** What an exact call is given: the request's own params and the channels back to its client. */
export interface ExactCallRequest {
  /** The request's params as the client sent them (name, arguments, _meta, inputResponses, ...). */
  readonly params: Record<string, unknown>;
  /** Aborted when the client cancels or goes away, or the server stops. */
  readonly signal: AbortSignal;
  /** What remains of the call's deadline in ms (0 = none). */
  readonly budgetMs: number;
  /** Sends one progress notification under the client's own token (a no-op when it asked for none). */
  progress(params: Record<string, unknown>): void;
  /** Sends one log message when the client's level lets it through. */
  log(params: { level: string; logger?: string; data: unknown }): void;
  /** What the calling client declared it can do (its request's, or its session's in legacy). */
  readonly clientCapabilities: Record<string, unknown>;
  /** Whose call this is (principalKey), so a task it creates upstream stays that caller's. */
  readonly principal: string | undefined;
  /** The session's task owner key (a legacy task is its session's). */
  readonly session: string;
  /** The request's era: decides how the upstream's questions can reach this client. */
  readonly era: 'legacy' | 'modern';
  /** Asks the client live (legacy era only: a server-to-client request). */
  ask(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
}

/**
 * The answer of an exact call: the upstream's result (passed through), an upstream's question for
 * a modern client (`inputRequired`: its inputRequests and requestState, sent as they are), the
 * upstream's task for a modern client that declared the tasks extension (`task`: the flat Task
 * fields, sent as they are; its tasks/* requests are forwarded, see ExactTaskRoutes), or the
 * upstream's JSON-RPC error (`error`: sent with its code, message and data).
 */
export type ExactAnswer =
  | { kind: 'result'; result: Record<string, unknown> }
  | { kind: 'input-required'; inputRequests: Record<string, unknown>; requestState?: string }
  | { kind: 'task'; task: Record<string, unknown> }
  | { kind: 'error'; code: number; message: string; data?: unknown }
  | { kind: 'cancelled' };

export type ExactCall = (request: ExactCallRequest) => Promise<ExactAnswer>;

/** An exact tool as the gateway hands it to the registry. */
export interface ExactToolSpec {
  readonly descriptor: ToolDescriptor;
  readonly call: ExactCall;
  readonly tags?: readonly string[];
}
