/**
 * A fleet worker's telemetry (`weft worker`): a CONSUMER span per job, `weft.job {tool}`, whose
 * parent is the trace context the job carries (the replica's run span), so a fleet call's trace
 * reaches the worker; the worker's engine then adds its own run span and the handler's spans
 * beneath it, as on a replica.
 *
 * Parented rather than linked: the replica's call waits for this job's outcome, so the job is part
 * of the call's own work (a task's work, which outlives its request, is linked instead). The worker
 * reports to the providers registered in its own process: start it with the application's SDK
 * set up first, e.g. `node --import ./otel-setup.js node_modules/.bin/weft worker ...`.
 */
import type { Span } from '@opentelemetry/api';
import type { CallTrace, TraceCarrier } from '../engine/call-observer.js';
import type { Outcome } from '../engine/outcome.js';
import { CallTelemetry, type TraceHost } from './call-telemetry.js';
import { hasMeterProvider, hasTracerProvider, type OtelApi, otelApi } from './otel-api.js';
import { ATTR, SCOPE_NAME, WEFT_ATTR } from './semconv.js';
import { parseTraceparent } from './w3c-context.js';
import { WeftMetrics } from './weft-metrics.js';

export interface ObservedJob {
  /** What the job's call carries into the worker's engine. */
  readonly trace: CallTrace;
  end(outcome: Outcome): void;
}

export class JobTelemetry {
  readonly calls: CallTelemetry;
  readonly #otel: OtelApi;
  readonly #tracing: boolean;

  private constructor(otel: OtelApi, calls: CallTelemetry, tracing: boolean) {
    this.#otel = otel;
    this.calls = calls;
    this.#tracing = tracing;
  }

  /** The worker's telemetry, or undefined when nothing would receive it. */
  static create(threadsBusy: () => number): JobTelemetry | undefined {
    const otel = otelApi();
    if (otel === undefined) return undefined;
    const tracing = hasTracerProvider(otel);
    const metrics = hasMeterProvider(otel)
      ? new WeftMetrics(otel.metrics.getMeter(SCOPE_NAME), { threadsBusy })
      : undefined;
    if (!tracing && metrics === undefined) return undefined;
    const tracer = tracing ? otel.trace.getTracer(SCOPE_NAME) : undefined;
    return new JobTelemetry(otel, new CallTelemetry(otel, tracer, metrics), tracing);
  }

  /** Starts the job's span under the context it carries (none: a trace of its own). */
  startJob(
    jobId: string,
    tool: string,
    carrier: TraceCarrier | undefined,
    worker: string,
  ): ObservedJob | undefined {
    if (!this.#tracing) return undefined;
    const otel = this.#otel;
    const remote = carrier ? parseTraceparent(otel, carrier.traceparent, carrier.tracestate) : undefined;
    const parent = remote ? otel.trace.setSpanContext(otel.ROOT_CONTEXT, remote) : otel.ROOT_CONTEXT;
    const span: Span = otel.trace.getTracer(SCOPE_NAME).startSpan(
      `weft.job ${tool}`,
      {
        kind: otel.SpanKind.CONSUMER,
        attributes: { [ATTR.genAiToolName]: tool, [WEFT_ATTR.fleetJobId]: jobId, [WEFT_ATTR.worker]: worker },
      },
      parent,
    );
    const host: TraceHost = { context: otel.trace.setSpan(parent, span) };
    return {
      trace: { request: host },
      end: (outcome) => {
        span.setAttribute(WEFT_ATTR.outcome, outcome.kind);
        if (outcome.kind !== 'ok' && outcome.kind !== 'input-required') {
          span.setStatus({ code: otel.SpanStatusCode.ERROR, message: outcome.kind });
        }
        span.end();
      },
    };
  }
}
