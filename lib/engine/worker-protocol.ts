/**
 * The messages that cross the thread boundary between the pool executor and `workers/pool-entry`.
 *
 * Tasks carry only cloneable data. Progress and log events travel on the worker's parentPort, which
 * Piscina re-emits as the pool's 'message' event: no extra MessageChannel per call. A request to the
 * client (ctx.elicit, ctx.sample) and a PeerOp (ctx.tools(), ctx.resources(), ctx.prompts(); see
 * peer-ops.ts) are the exceptions: each brings its own reply port, created only when a handler asks,
 * because the answer must reach that one waiting worker.
 */
import type { MessagePort } from 'node:worker_threads';
import type { Principal } from '../auth/principal.js';
import type { Question } from '../tools/client-questions.js';
import type { MovedString } from '../tools/moved-strings.js';
import type { LogLevel } from '../tools/tool-context.js';
import type { TraceCarrier, WorkerTelemetry } from './call-observer.js';
import type { CallEvents, CallInputs } from './engine-call.js';
import type { PeerOp, PeerReply } from './peer-ops.js';

/** What every thread of a pool is given once, when it starts. */
export interface PoolWorkerData {
  /** The buffer that PoolTask.flag slots index into. */
  cancelFlags: SharedArrayBuffer;
  /** The pool's thread lives: threads loading their entry, and whether the pool closes (thread-life.ts). */
  threadLife: SharedArrayBuffer;
}

export interface PoolTask {
  callId: number;
  toolName: string;
  moduleUrl: string;
  exportName: string;
  args: unknown;
  /** Where the call's cancel flag (see abandon-reason.ts) lies in the pool's buffer (cancel-flags.ts). */
  flagSlot: number;
  deadline: number | undefined;
  wantsProgress: boolean;
  /** Index into LOG_LEVELS of the least severe level the client wants; LOG_LEVELS.length = none. */
  minLogLevel: number;
  /** What the client declared at initialize; undefined when there is no client to ask (ctx.elicit...). */
  clientCapabilities?: Record<string, unknown>;
  /** Present when the call runs in rounds: questions are answered from these, never relayed. */
  inputs?: CallInputs;
  /** Who is calling (ctx.auth, frozen again in the worker); absent without auth. */
  auth?: Principal;
  /** The call's trace context, when telemetry is tracing: the handler's own spans are its children. */
  trace?: TraceCarrier;
  /** The tool may load native code in this thread (pinned to threads); otherwise it is refused. */
  nativeAllowed?: boolean;
  /**
   * The tool has no outputSchema, so a string it returns is a text block's text (as the main
   * thread would make it): a long one may then leave the thread as bytes (tools/moved-strings.ts).
   */
  stringIsText?: boolean;
}

/**
 * `events` counts the progress and log events the call posted on parentPort. That port and the
 * task's result port are separate channels with no ordering between them, so the executor holds a
 * result back until it has seen that many events: what a handler reported before returning is
 * delivered before its answer.
 */
export type PoolTaskResult = (
  | {
      ok: true;
      value: unknown;
      events: number;
      /** The value's long strings, moved out as bytes by a pool thread (tools/moved-strings.ts). */
      moved?: MovedString[];
    }
  | { ok: false; message: string; abandoned: boolean; events: number; missingCapability?: string }
  /** The handler asked questions its answers lacked: the attempt is over and the thread free. */
  | { ok: 'input-required'; questions: Question[]; events: number }
) & {
  /** Present when the task carried a trace context: where it ran and the spans it made. */
  telemetry?: WorkerTelemetry;
  /**
   * The tool's module tried to load these native addons and was refused (workers/native-guard.ts):
   * its handler did not run, and the call is to run where native code can be stopped.
   */
  nativeRefused?: readonly string[];
};

/**
 * A handler's progress or log line, sent from wherever it runs (pool thread or pool process) to the
 * main thread; workers/event-reporter.ts makes them, `deliverCallEvent` hands them on.
 */
export type CallEvent =
  | { weft: 'progress'; callId: number; progress: number; total?: number; message?: string }
  | { weft: 'log'; callId: number; level: LogLevel; data: unknown };

/** Passes a worker's progress or log event to the call it belongs to. */
export function deliverCallEvent(events: CallEvents, event: CallEvent): void {
  if (event.weft === 'progress') events.progress?.(event.progress, event.total, event.message);
  else events.log(event.level, event.data);
}

export type WorkerEvent =
  | CallEvent
  | { weft: 'request'; callId: number; method: string; params: Record<string, unknown>; reply: MessagePort }
  | { weft: 'peer'; callId: number; op: PeerOp; reply: MessagePort };

/** What the main thread posts on a request's reply port. */
export type ClientReply = PeerReply;

export function isWorkerEvent(message: unknown): message is WorkerEvent {
  return typeof message === 'object' && message !== null && 'weft' in message && 'callId' in message;
}
