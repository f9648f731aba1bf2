/**
 * Reports through the main thread's tracer the spans a blocking handler made in a pool thread or
 * process (workers/span-relay.ts records them there and sends them back with the result).
 *
 * A thread has its own globals, so the application's provider is not registered there; rather than
 * ask every application to set up an SDK per thread, weft records the spans where they are made and
 * replays them here, in the order they started, each under its replayed parent and the call's run
 * span. The trace id, names, times, attributes, events and status are the handler's; the span ids
 * are the main provider's own (the API cannot choose them), so an id the handler saw inside the
 * thread is not the one exported. A handler that sends its context onward from a thread (an HTTP
 * call with a traceparent) therefore names the right trace but a span id that is not exported; a
 * process-isolated tool whose module registers its own SDK keeps its ids (spans then go straight to
 * that SDK and none are relayed).
 */
import type { Attributes, Context, Tracer } from '@opentelemetry/api';
import type { RelayedSpan } from '../engine/call-observer.js';
import type { OtelApi } from './otel-api.js';

/** How many spans one call may bring back: a handler in a loop must not flood the exporter. */
export const MAX_RELAYED_SPANS = 1_000;

export function replaySpans(
  otel: OtelApi,
  tracer: Tracer,
  runContext: Context,
  runSpanId: string,
  spans: readonly RelayedSpan[],
): void {
  const contexts = new Map<string, Context>([[runSpanId, runContext]]);
  for (const relayed of spans.slice(0, MAX_RELAYED_SPANS)) {
    const parent = contexts.get(relayed.parent) ?? runContext;
    const span = tracer.startSpan(
      relayed.name,
      { kind: relayed.kind, attributes: relayed.attributes as Attributes, startTime: relayed.startMs },
      parent,
    );
    for (const event of relayed.events) {
      span.addEvent(event.name, (event.attributes ?? {}) as Attributes, event.timeMs);
    }
    if (relayed.status !== undefined) span.setStatus(relayed.status);
    span.end(relayed.endMs);
    contexts.set(relayed.id, otel.trace.setSpan(parent, span));
  }
}
