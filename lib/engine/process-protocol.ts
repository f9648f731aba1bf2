/**
 * The messages between the process executor and `workers/process-entry`, a pool child process.
 *
 * A child process shares no memory with the server, so there is no cancel flag to raise: a call
 * that is abandoned is killed outright. What the server needs from the child is its pid, announced
 * when the call starts (`started`), so that it can kill that process and everything it spawned.
 * Progress and log events travel on the same IPC channel as the task's result.
 */
import type { CallInputs } from './engine-call.js';
import type { CallEvent } from './worker-protocol.js';

export interface ProcessTask {
  callId: number;
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
   * Present when the call runs in rounds: questions are answered from these. A process has no way
   * to ask the client live, so without them ctx.elicit and friends are absent.
   */
  inputs?: CallInputs;
}

export type ProcessEvent = { weft: 'started'; callId: number; pid: number } | CallEvent;

export function isProcessEvent(message: unknown): message is ProcessEvent {
  return (
    typeof message === 'object' &&
    message !== null &&
    'weft' in message &&
    'callId' in message &&
    typeof (message as { callId: unknown }).callId === 'number'
  );
}
