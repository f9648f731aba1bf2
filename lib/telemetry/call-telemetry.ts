/**
 * What a tool call's life looks like in traces and metrics: the engine's CallObserver.
 *
 * A blocking call gets two child spans under its request's span: `weft.queue {tool}` while it
 * waits for a slot (only when it had to wait: a call that finds a free slot has none), and
 * `weft.run {tool}` from its start to its outcome, with the executor, the thread, process or fleet
 * worker that ran it, and the outcome. The run span's context travels with the work, so spans the
 * handler makes are its children (replayed from threads and processes, see span-replay.ts; made
 * by the worker's own SDK on the fleet). A task's work is its own trace, `weft.task {tool}`,
 * linked to the request that created it (it outlives that request). An inline call has no child
 * spans of its own: its handler runs inside the request's context.
 *
 * Metrics for every call, inline ones too: queue wait, run time, calls in flight, outcomes.
 */
import type { Attributes, Context, Span, SpanContext, Tracer } from '@opentelemetry/api';
import type {
  CallObserver,
  CallWatch,
  ExecutorKind,
  RelayedSpan,
  TraceCarrier,
} from '../engine/call-observer.js';
import type { EngineCall } from '../engine/engine-call.js';
import type { Outcome, OutcomeKind } from '../engine/outcome.js';
import type { OtelApi } from './otel-api.js';
import { ATTR, WEFT_ATTR } from './semconv.js';
import { replaySpans } from './span-replay.js';
import { carrierOf } from './w3c-context.js';
import type { CallCounts, WeftMetrics } from './weft-metrics.js';

/**
 * What a call's CallTrace.request is to telemetry: the request's observation (request-telemetry),
 * or a fleet worker's job span. `outcome` is written back for the request's `error.type`.
 */
export interface TraceHost {
  outcome?: OutcomeKind | undefined;
  readonly context: Context | undefined;
  /** The request's span: when the sampler left it unrecorded, the call's own spans are skipped. */
  readonly span?: Span | undefined;
}

function hostOf(request: unknown): TraceHost | undefined {
  return typeof request === 'object' && request !== null && 'context' in request
    ? (request as TraceHost)
    : undefined;
}

/**
 * The attributes of one tool on one executor, made once and reused by every call (the SDK looks
 * attribute sets up on each record; weft need not build them anew too), its calls in flight and
 * its calls ended per outcome.
 */
class CallKey implements CallCounts {
  readonly attributes: Attributes;
  readonly #byOutcome = new Map<OutcomeKind, { readonly attributes: Attributes; count: number }>();
  inFlight = 0;

  constructor(tool: string, executor: ExecutorKind) {
    this.attributes = { [ATTR.genAiToolName]: tool, [WEFT_ATTR.executor]: executor };
  }

  /** Counts one call ended with `outcome`, and gives the attributes to record it under. */
  end(outcome: OutcomeKind): Attributes {
    let entry = this.#byOutcome.get(outcome);
    if (entry === undefined) {
      entry = { attributes: { ...this.attributes, [WEFT_ATTR.outcome]: outcome }, count: 0 };
      this.#byOutcome.set(outcome, entry);
    }
    entry.count++;
    return entry.attributes;
  }

  *ended(): Iterable<readonly [Attributes, number]> {
    for (const { attributes, count } of this.#byOutcome.values()) yield [attributes, count];
  }
}

export class CallTelemetry implements CallObserver {
  readonly #otel: OtelApi;
  readonly #tracer: Tracer | undefined;
  readonly #metrics: WeftMetrics | undefined;
  readonly #keys = new Map<string, CallKey>();

  constructor(otel: OtelApi, tracer: Tracer | undefined, metrics: WeftMetrics | undefined) {
    this.#otel = otel;
    this.#tracer = tracer;
    this.#metrics = metrics;
    metrics?.observeCalls(() => this.#keys.values());
  }

  begin(call: EngineCall, executor: ExecutorKind): CallWatch {
    const name = `${call.tool.name}\u0000${executor}`;
    let key = this.#keys.get(name);
    if (key === undefined) {
      key = new CallKey(call.tool.name, executor);
      this.#keys.set(name, key);
    }
    return new Watch(this.#otel, this.#tracer, this.#metrics, call, key);
  }
}

class Watch implements CallWatch {
  readonly #otel: OtelApi;
  readonly #tracer: Tracer | undefined;
  readonly #metrics: WeftMetrics | undefined;
  readonly #host: TraceHost | undefined;
  readonly #tool: string;
  readonly #key: CallKey;
  readonly #attributes: Attributes;
  readonly #begunAt = performance.now();
  #startedAt: number | undefined;
  /** Where the call's spans hang from: the request's context, or the task's span. */
  #parent: Context | undefined;
  #taskSpan: Span | undefined;
  #queueSpan: Span | undefined;
  #runSpan: Span | undefined;
  #runContext: Context | undefined;
  /** The request's span context when the sampler left it unrecorded (handed on instead of a run span's). */
  #unrecorded: SpanContext | undefined;
  #settled = false;

  constructor(
    otel: OtelApi,
    tracer: Tracer | undefined,
    metrics: WeftMetrics | undefined,
    call: EngineCall,
    key: CallKey,
  ) {
    this.#otel = otel;
    this.#metrics = metrics;
    this.#tool = call.tool.name;
    this.#key = key;
    this.#attributes = key.attributes;
    key.inFlight++;
    const executor = key.attributes[WEFT_ATTR.executor];
    // An inline call starts as it enters: its wait for a turn (a tool's concurrency) is its run.
    if (executor === 'inline') this.#startedAt = this.#begunAt;
    this.#host = hostOf(call.trace?.request);
    const requestContext = this.#host?.context;
    if (tracer === undefined || requestContext === undefined) return;
    this.#tracer = tracer;
    if (call.trace?.linked) {
      // A task's work: its own trace, linked to the request that created it.
      const link = otel.trace.getSpanContext(requestContext);
      const attributes: Attributes = { ...this.#attributes };
      if (call.trace.taskId !== undefined) attributes[WEFT_ATTR.taskId] = call.trace.taskId;
      this.#taskSpan = tracer.startSpan(
        `weft.task ${this.#tool}`,
        { kind: otel.SpanKind.INTERNAL, root: true, attributes, links: link ? [{ context: link }] : [] },
        otel.ROOT_CONTEXT,
      );
      this.#parent = otel.trace.setSpan(otel.ROOT_CONTEXT, this.#taskSpan);
    } else if (this.#host?.span?.isRecording() === false) {
      // The sampler dropped the request's trace: queue and run spans under it would be dropped
      // too, so none is made. The handler still runs in the request's context (inline) or is
      // handed it (pool thread, process), so it sees the trace id and its spans are dropped alike.
      this.#tracer = undefined;
      this.#unrecorded = this.#host.span.spanContext();
      if (executor === 'inline') this.#runContext = requestContext;
      return;
    } else {
      this.#parent = requestContext;
    }
    // An inline call has no slot to wait for and nothing to carry: it runs in its parent's context.
    if (executor === 'inline') this.#runContext = this.#parent;
  }

  /** Runs the call's dispatch in its context, so an inline handler's spans land under it. */
  within<T>(dispatch: () => T): T {
    const context = this.#runContext ?? this.#parent;
    return context === undefined ? dispatch() : this.#otel.context.with(context, dispatch);
  }

  queued(): void {
    if (this.#tracer === undefined || this.#parent === undefined) return;
    this.#queueSpan = this.#tracer.startSpan(
      `weft.queue ${this.#tool}`,
      { kind: this.#otel.SpanKind.INTERNAL, attributes: this.#attributes },
      this.#parent,
    );
  }

  started(): void {
    const now = performance.now();
    this.#startedAt = now;
    this.#queueSpan?.end();
    this.#queueSpan = undefined;
    this.#metrics?.queueWait.record((now - this.#begunAt) / 1000, this.#attributes);
    if (this.#tracer === undefined || this.#parent === undefined) return;
    this.#runSpan = this.#tracer.startSpan(
      `weft.run ${this.#tool}`,
      { kind: this.#otel.SpanKind.INTERNAL, attributes: this.#attributes },
      this.#parent,
    );
    this.#runContext = this.#otel.trace.setSpan(this.#parent, this.#runSpan);
  }

  carrier(): TraceCarrier | undefined {
    const context = this.#runSpan?.spanContext() ?? this.#unrecorded;
    return context === undefined ? undefined : carrierOf(context);
  }

  ranOn(worker: string, spans?: readonly RelayedSpan[]): void {
    const run = this.#runSpan;
    if (run === undefined) return;
    run.setAttribute(WEFT_ATTR.worker, worker);
    if (
      spans !== undefined &&
      spans.length > 0 &&
      this.#tracer !== undefined &&
      this.#runContext !== undefined
    ) {
      replaySpans(this.#otel, this.#tracer, this.#runContext, run.spanContext().spanId, spans);
    }
  }

  job(jobId: string): void {
    this.#runSpan?.setAttribute(WEFT_ATTR.fleetJobId, jobId);
  }

  settled(outcome: Outcome): void {
    if (this.#settled) return;
    this.#settled = true;
    const now = performance.now();
    const kind = outcome.kind;
    if (this.#host !== undefined) this.#host.outcome = kind;
    this.#key.inFlight--;
    if (this.#runSpan !== undefined || this.#queueSpan !== undefined || this.#taskSpan !== undefined) {
      const failed = kind !== 'ok' && kind !== 'input-required';
      const status = failed
        ? { code: this.#otel.SpanStatusCode.ERROR, message: describe(outcome) }
        : undefined;
      for (const span of [this.#queueSpan, this.#runSpan, this.#taskSpan]) {
        if (span === undefined) continue;
        span.setAttribute(WEFT_ATTR.outcome, kind);
        if (status !== undefined) span.setStatus(status);
        span.end();
      }
    }
    const metrics = this.#metrics;
    if (metrics === undefined) return;
    const ended = this.#key.end(kind);
    // A call that never started (overloaded, cancelled in the queue) has no run time.
    if (this.#startedAt !== undefined && kind !== 'overloaded') {
      metrics.runTime.record((now - this.#startedAt) / 1000, ended);
    }
  }
}

function describe(outcome: Outcome): string {
  switch (outcome.kind) {
    case 'ok':
      return 'ok';
    case 'tool-error':
      return outcome.message;
    case 'input-required':
      return 'The handler asked for input';
    case 'timeout':
      return `The call passed its deadline of ${outcome.limitMs} ms`;
    case 'cancelled':
      return outcome.reason === 'shutdown' ? 'The server shut down' : 'The client cancelled the call';
    case 'panicked':
      return outcome.publicReason ?? 'The worker running the call died';
    case 'overloaded':
      return outcome.reason;
  }
}
