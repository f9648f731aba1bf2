/**
 * Spans a blocking handler makes with `@opentelemetry/api` where it runs (a pool thread or a pool
 * process), recorded there and sent back with the call's result for the main thread to report
 * (lib/telemetry/span-replay.ts).
 *
 * A thread does not share the main thread's globals, so the application's tracer provider is not
 * registered in it. When the call carries a trace context (the main thread is tracing), this
 * module registers, once per thread, a recording tracer provider and an AsyncLocalStorage context
 * manager, and runs the handler under the call's run span: `trace.getTracer(...).startActiveSpan`
 * inside the handler makes a child of it. A process whose tool module registered an SDK of its own
 * keeps it: its spans go to that SDK, parented to the same run span, and nothing is relayed.
 *
 * Nothing here is loaded, and nothing is done, for a call that carries no trace context.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { isMainThread, threadId } from 'node:worker_threads';
import type {
  Attributes,
  AttributeValue,
  Context,
  ContextManager,
  Link,
  Span,
  SpanContext,
  SpanOptions,
  SpanStatus,
  TimeInput,
  Tracer,
  TracerProvider,
} from '@opentelemetry/api';
import type { RelayedSpan, TraceCarrier, WorkerTelemetry } from '../lib/engine/call-observer.js';
import { hasTracerProvider, type OtelApi, otelApi } from '../lib/telemetry/otel-api.js';
import { MAX_RELAYED_SPANS } from '../lib/telemetry/span-replay.js';
import { parseTraceparent } from '../lib/telemetry/w3c-context.js';

const WORKER = isMainThread ? `pid ${process.pid}` : `thread ${threadId}`;

/** The spans of one call, in the order they started. */
class Collector {
  readonly spans: RelaySpan[] = [];
  open = true;
}

let setup: { otel: OtelApi; relaying: boolean; key: symbol } | null | undefined;

function setUp(): typeof setup {
  if (setup !== undefined) return setup;
  const otel = otelApi();
  if (otel === undefined) {
    setup = null;
    return setup;
  }
  const key = otel.createContextKey('weft.spanCollector');
  // The application's own SDK in this process, if its module registered one, wins.
  const relaying = !hasTracerProvider(otel);
  if (relaying) otel.trace.setGlobalTracerProvider(new RelayTracerProvider(otel, key));
  otel.context.setGlobalContextManager(new ThreadContextManager(otel));
  setup = { otel, relaying, key };
  return setup;
}

/**
 * Runs `work` under the call's trace context, and returns its result with where it ran and the
 * spans it made. Without a carrier, or without the API in this thread, `work` runs as it is.
 */
export async function withCallTrace<R extends object>(
  carrier: TraceCarrier | undefined,
  work: () => Promise<R>,
): Promise<R & { telemetry?: WorkerTelemetry }> {
  if (carrier === undefined) return work();
  const ready = setUp();
  const parent = ready ? parseTraceparent(ready.otel, carrier.traceparent, carrier.tracestate) : undefined;
  if (!ready || parent === undefined) return work();
  const { otel, key } = ready;
  const collector = new Collector();
  const context = otel.trace.setSpanContext(otel.ROOT_CONTEXT, parent).setValue(key, collector);
  try {
    const result = await otel.context.with(context, work);
    return { ...result, telemetry: { worker: WORKER, spans: finish(collector) } };
  } catch (error) {
    collector.open = false;
    throw error;
  }
}

function finish(collector: Collector): RelayedSpan[] {
  collector.open = false;
  const now = Date.now();
  return collector.spans.map((span) => span.relayed(now));
}

class RelayTracerProvider implements TracerProvider {
  readonly #tracer: RelayTracer;

  constructor(otel: OtelApi, key: symbol) {
    this.#tracer = new RelayTracer(otel, key);
  }

  getTracer(): Tracer {
    return this.#tracer;
  }
}

class RelayTracer implements Tracer {
  readonly #otel: OtelApi;
  readonly #key: symbol;

  constructor(otel: OtelApi, key: symbol) {
    this.#otel = otel;
    this.#key = key;
  }

  startSpan(name: string, options: SpanOptions = {}, context?: Context): Span {
    const otel = this.#otel;
    const active = context ?? otel.context.active();
    const collector = active.getValue(this.#key) as Collector | undefined;
    const parent = options.root ? undefined : otel.trace.getSpanContext(active);
    // Under a trace the sampler dropped, a span is not recorded either: it carries its parent's
    // context (the trace id a handler may log) and nothing is collected or sent back.
    if (parent !== undefined && (parent.traceFlags & otel.TraceFlags.SAMPLED) === 0) {
      return otel.trace.wrapSpanContext(parent);
    }
    // A span made outside any call (a stray timer after the call ended) is not recorded.
    if (
      collector === undefined ||
      !collector.open ||
      parent === undefined ||
      collector.spans.length >= MAX_RELAYED_SPANS
    ) {
      return otel.trace.wrapSpanContext(otel.INVALID_SPAN_CONTEXT);
    }
    const span = new RelaySpan(
      name,
      options,
      { traceId: parent.traceId, spanId: randomBytes(8).toString('hex'), traceFlags: parent.traceFlags },
      parent.spanId,
    );
    collector.spans.push(span);
    return span;
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...rest: unknown[]): ReturnType<F> {
    const fn = rest.pop() as F;
    const [options, context] = rest as [SpanOptions | undefined, Context | undefined];
    const otel = this.#otel;
    const parent = context ?? otel.context.active();
    const span = this.startSpan(name, options, parent);
    const run = fn as (span: Span) => ReturnType<F>;
    return otel.context.with(otel.trace.setSpan(parent, span), run, undefined, span);
  }
}

/** Epoch milliseconds for a TimeInput (HrTime, epoch ms, performance.now() ms, or a Date). */
function epochMs(time: TimeInput | undefined): number {
  if (time === undefined) return Date.now();
  if (time instanceof Date) return time.getTime();
  if (Array.isArray(time)) return time[0] * 1000 + time[1] / 1e6;
  return time < performance.timeOrigin ? performance.timeOrigin + time : time;
}

class RelaySpan implements Span {
  readonly #context: SpanContext;
  readonly #parent: string;
  #name: string;
  readonly #kind: number;
  readonly #startMs: number;
  #endMs: number | undefined;
  readonly #attributes: Record<string, unknown>;
  readonly #events: RelayedSpan['events'] = [];
  #status: SpanStatus | undefined;

  constructor(name: string, options: SpanOptions, context: SpanContext, parent: string) {
    this.#name = name;
    this.#kind = options.kind ?? 0;
    this.#startMs = epochMs(options.startTime);
    this.#attributes = { ...(options.attributes ?? {}) };
    this.#context = context;
    this.#parent = parent;
  }

  relayed(now: number): RelayedSpan {
    const span: RelayedSpan = {
      id: this.#context.spanId,
      parent: this.#parent,
      name: this.#name,
      kind: this.#kind,
      startMs: this.#startMs,
      endMs: this.#endMs ?? now,
      attributes: this.#attributes,
      events: this.#events,
    };
    if (this.#status !== undefined) span.status = this.#status;
    return span;
  }

  spanContext(): SpanContext {
    return this.#context;
  }

  setAttribute(key: string, value: AttributeValue): this {
    if (this.#endMs === undefined) this.#attributes[key] = value;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    if (this.#endMs === undefined) Object.assign(this.#attributes, attributes);
    return this;
  }

  addEvent(name: string, attributes?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.#endMs !== undefined) return this;
    const isTime = typeof attributes === 'number' || Array.isArray(attributes) || attributes instanceof Date;
    const event: RelayedSpan['events'][number] = {
      name,
      timeMs: epochMs(isTime ? (attributes as TimeInput) : time),
    };
    if (!isTime && attributes !== undefined) event.attributes = { ...(attributes as Attributes) };
    this.#events.push(event);
    return this;
  }

  addLink(_link: Link): this {
    return this; // links to other traces are not relayed
  }

  addLinks(_links: Link[]): this {
    return this;
  }

  setStatus(status: SpanStatus): this {
    if (this.#endMs === undefined) this.#status = { ...status };
    return this;
  }

  updateName(name: string): this {
    if (this.#endMs === undefined) this.#name = name;
    return this;
  }

  end(endTime?: TimeInput): void {
    this.#endMs ??= epochMs(endTime);
  }

  isRecording(): boolean {
    return this.#endMs === undefined;
  }

  recordException(exception: unknown, time?: TimeInput): void {
    const error = exception as { name?: string; message?: string; stack?: string };
    const attributes: Attributes = {};
    if (typeof exception === 'string') attributes['exception.message'] = exception;
    else {
      if (error?.name) attributes['exception.type'] = error.name;
      if (error?.message) attributes['exception.message'] = error.message;
      if (error?.stack) attributes['exception.stacktrace'] = error.stack;
    }
    this.addEvent('exception', attributes, time);
  }
}

/** The active context, carried by AsyncLocalStorage across the handler's awaits. */
class ThreadContextManager implements ContextManager {
  readonly #otel: OtelApi;
  readonly #storage = new AsyncLocalStorage<Context>();

  constructor(otel: OtelApi) {
    this.#otel = otel;
  }

  active(): Context {
    return this.#storage.getStore() ?? this.#otel.ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.#storage.run(context, () => fn.apply(thisArg, args));
  }

  bind<T>(context: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const manager = this;
    return function (this: unknown, ...args: unknown[]) {
      return manager.with(context, () => (target as (...a: unknown[]) => unknown).apply(this, args));
    } as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.#storage.disable();
    return this;
  }
}
