/**
 * One tool call as the engine sees it: a validated tool and arguments, a budget, a way to be
 * cancelled, and where its progress and log events go. No JSON-RPC in sight.
 */

import type { Principal } from '../auth/principal.js';
import type { PromptsView } from '../prompts/prompts-view.js';
import type { ResourcesView } from '../resources/resources-view.js';
import type { RegisteredTool } from '../tools/registered-tool.js';
import type { LogLevel, ToolsView } from '../tools/tool-context.js';
import type { CallTrace, CallWatch } from './call-observer.js';
import type { Cancellation } from './cancellation.js';
import type { Caller } from './fair-queue.js';

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
  /** Cancelled with reason 'cancelled' (client) or 'shutdown' (server stopping). */
  cancellation: Cancellation;
  events: CallEvents;
  /**
   * Who the call is for: an opaque key (chosen by the router: principal, session, connection, or
   * the server's `fairness.key`) and its weight. Slots are shared fairly between keys, and the
   * per-caller limits count per key. Absent: the anonymous caller.
   */
  caller?: Caller;
  /** How the handler reaches the client and the server (ctx.elicit, ctx.sample, ctx.tools()...). */
  peer?: CallPeer;
  /** Who is calling (ctx.auth), carried to wherever the handler runs; undefined without auth. */
  auth?: Principal | undefined;
  /**
   * Answers known before the handler runs. With them, the handler's questions are answered from
   * these (in order, by key) and one they lack ends the attempt with an 'input-required' outcome
   * instead of going to the client; without them, questions go to the client through `peer`.
   */
  inputs?: CallInputs;
  /**
   * Told the id of each fleet job that carries this call (a retry is a new job). A task records
   * it, so that another replica can follow the job to its end if this one stops.
   */
  onFleetJob?: (jobId: string) => void;
  /**
   * On the fleet: a server shutdown decides the call cancelled here but leaves its job running,
   * for another replica to follow (a task in a shared store). Without it the job is stopped too.
   */
  keepOnShutdown?: boolean;
  /** The request this call serves, for its telemetry (absent: telemetry is off or not tracing). */
  trace?: CallTrace;
  /** Set by the engine as an observed call enters it: the executors report its queue and start here. */
  watch?: CallWatch;
}

export interface CallInputs {
  /** Answers by question key (client-questions.ts). */
  answers: Record<string, unknown>;
  /** What the handler carried over from its previous attempt (ctx.requestState), already verified. */
  state?: unknown;
}

/**
 * What lies beyond one call: requests to the client that made it, and the server's registries.
 * The engine passes it through to handlers; it never looks inside.
 */
export interface CallPeer {
  clientCapabilities: Record<string, unknown>;
  /** Sends a request to the client (on this call's stream) and resolves with its result. */
  request(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  /** `signal` is the calling handler's: when its call is abandoned, calls it made are cancelled. */
  tools(signal: AbortSignal): ToolsView;
  resources(): ResourcesView;
  prompts(): PromptsView;
}
