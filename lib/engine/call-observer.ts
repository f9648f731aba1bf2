/**
 * The engine's seam for telemetry: what it tells an observer about each call's life (admitted,
 * queued for a slot, started, where it ran, how it ended), and the trace context it carries across
 * a hop to a thread, a process or a fleet worker.
 *
 * The engine knows nothing of OpenTelemetry: lib/telemetry implements this interface, and with
 * telemetry off the engine holds no observer and pays one branch per call. Era-blind, like the rest
 * of the engine.
 */
import type { EngineCall } from './engine-call.js';
import type { Outcome } from './outcome.js';

/** Where a call runs. */
export type ExecutorKind = 'inline' | 'thread' | 'process' | 'fleet';

/**
 * The request a call serves, as its telemetry sees it: opaque to the engine. `linked`: the call
 * outlives that request (a task's work) and is linked to it rather than made its child.
 */
export interface CallTrace {
  readonly request: unknown;
  readonly linked?: boolean;
  /** The task whose work this is. */
  readonly taskId?: string;
}

/** A W3C trace context, as it crosses a thread, process or fleet boundary. */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

/**
 * A span recorded where a blocking handler ran (a pool thread or process) and brought back with
 * its result, to be reported through the main thread's provider. `parent` is the id of another
 * relayed span, or of the span the call's context named (its run span). Times are epoch ms.
 */
export interface RelayedSpan {
  id: string;
  parent: string;
  name: string;
  kind: number;
  startMs: number;
  endMs: number;
  attributes: Record<string, unknown>;
  events: Array<{ name: string; timeMs: number; attributes?: Record<string, unknown> }>;
  status?: { code: number; message?: string };
}

/** What a worker sends back beside its result when the call carried a trace context. */
export interface WorkerTelemetry {
  /** The thread id or pid that ran the call. */
  worker: string;
  spans: RelayedSpan[];
}

export interface CallObserver {
  /** A call enters the engine; the watch follows it to its outcome (undefined: not observed). */
  begin(call: EngineCall, executor: ExecutorKind): CallWatch | undefined;
}

export interface CallWatch {
  /** Runs the call's dispatch in its trace context (a span an inline handler starts is its child). */
  within<T>(dispatch: () => T): T;
  /** No slot was free: the call waits in the queue. */
  queued(): void;
  /** The call has its slot and its work starts now. */
  started(): void;
  /** The trace context to send with the work (the run's), once started. */
  carrier(): TraceCarrier | undefined;
  /** Which thread, process or fleet worker ran it, and the spans it brought back. */
  ranOn(worker: string, spans?: readonly RelayedSpan[]): void;
  /** The fleet job that carries it. */
  job?(jobId: string): void;
  /** The outcome is decided. Called once. */
  settled(outcome: Outcome): void;
}
