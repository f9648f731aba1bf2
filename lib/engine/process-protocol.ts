/**
 * The messages between the process pool and `workers/process-entry`, a pool child process.
 *
 * A child process shares no memory with the server, so there is no cancel flag to raise: a call
 * that is abandoned is killed outright, with every process it started (found by its `mark`). The
 * server sends a call as `run` and the child answers with its `result`, one call at a time.
 * Progress and log events travel on the same IPC channel as the task's result, and so do a
 * handler's requests to the main thread (a question for the client, a PeerOp: see peer-ops.ts),
 * numbered so that the `reply` the server sends back on that channel finds its waiting request.
 */
import type { Principal } from '../auth/principal.js';
import type { TraceCarrier } from './call-observer.js';
import type { CallInputs } from './engine-call.js';
import type { PeerOp, PeerReply } from './peer-ops.js';
import type { CallEvent, PoolTaskResult } from './worker-protocol.js';

export interface ProcessTask {
  callId: number;
  /** Put in the environment of every process the handler starts (call-mark.ts). */
  mark: string;
  toolName: string;
  moduleUrl: string;
  exportName: string;
  args: unknown;
  deadline: number | undefined;
  wantsProgress: boolean;
  /** Index into LOG_LEVELS of the least severe level the client wants; LOG_LEVELS.length = none. */
  minLogLevel: number;
  /** What the request's client declared; undefined when there is no client to ask. */
  clientCapabilities?: Record<string, unknown>;
  /**
   * Present when the call runs in rounds: questions are answered from these; without them a
   * question is a `request` to the server, which asks the client live.
   */
  inputs?: CallInputs;
  /** Who is calling (ctx.auth, frozen again in the child); absent without auth. */
  auth?: Principal;
  /** The call's trace context, when telemetry is tracing (see PoolTask.trace). */
  trace?: TraceCarrier;
}

export type ProcessEvent = CallEvent | ProcessRequest;

/** What the server sends a pool process to run a call. */
export interface ProcessRun {
  weft: 'run';
  task: ProcessTask;
}

/** The child's answer to a `run`. */
export interface ProcessResult {
  weft: 'result';
  callId: number;
  result: PoolTaskResult;
}

/** A handler's request to the main thread, answered by a `ProcessReply` with the same requestId. */
export type ProcessRequest =
  | { weft: 'request'; callId: number; requestId: number; method: string; params: Record<string, unknown> }
  | { weft: 'peer'; callId: number; requestId: number; op: PeerOp };

/** What the server sends the child process in answer to one of its requests. */
export interface ProcessReply {
  weft: 'reply';
  requestId: number;
  reply: PeerReply;
}

export function isProcessEvent(message: unknown): message is ProcessEvent {
  return (
    typeof message === 'object' &&
    message !== null &&
    'weft' in message &&
    'callId' in message &&
    typeof (message as { callId: unknown }).callId === 'number'
  );
}
