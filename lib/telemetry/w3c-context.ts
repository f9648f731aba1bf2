/**
 * W3C Trace Context and Baggage, read from a request's `params._meta` and written for a hop to a
 * thread, a process or a fleet worker.
 *
 * weft reads these keys itself rather than through the application's global propagator: the
 * 2026-07-28 revision reserves `traceparent`, `tracestate` and `baggage` in `_meta` with the W3C
 * formats (SEP-414), whatever propagator the application configured for its HTTP traffic, and a
 * test provider registered without one must still see the client's parent.
 */
import type { Context, SpanContext } from '@opentelemetry/api';
import type { TraceCarrier } from '../engine/call-observer.js';
import type { OtelApi } from './otel-api.js';

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** The span context a `traceparent` names, or undefined when it is malformed or all zeros. */
export function parseTraceparent(
  otel: OtelApi,
  traceparent: unknown,
  tracestate?: unknown,
): SpanContext | undefined {
  if (typeof traceparent !== 'string') return undefined;
  const match = TRACEPARENT.exec(traceparent.trim());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string?,
  ];
  // Version ff is invalid; version 00 has nothing after the flags.
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (!otel.isValidTraceId(traceId) || !otel.isValidSpanId(spanId)) return undefined;
  const context: SpanContext = {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & 1,
    isRemote: true,
  };
  if (typeof tracestate === 'string' && tracestate.length > 0) {
    context.traceState = otel.createTraceState(tracestate);
  }
  return context;
}

/** `traceparent` for a span context. */
export function formatTraceparent(context: SpanContext): string {
  const flags = (context.traceFlags & 0xff).toString(16).padStart(2, '0');
  return `00-${context.traceId}-${context.spanId}-${flags}`;
}

/** The carrier that names `context` as the parent on the other side of a hop. */
export function carrierOf(context: SpanContext): TraceCarrier {
  const carrier: TraceCarrier = { traceparent: formatTraceparent(context) };
  const state = context.traceState?.serialize();
  if (state) carrier.tracestate = state;
  return carrier;
}

/**
 * The context `_meta` names as the request's parent (with its baggage), or undefined when it names
 * none. A malformed `traceparent` is ignored, as W3C asks: the request is still served.
 */
export function contextFromMeta(otel: OtelApi, base: Context, meta: unknown): Context | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  const { traceparent, tracestate, baggage } = meta as Record<string, unknown>;
  const parent = parseTraceparent(otel, traceparent, tracestate);
  if (parent === undefined) return undefined;
  let context = otel.trace.setSpanContext(base, parent);
  const entries = typeof baggage === 'string' ? parseBaggage(baggage) : undefined;
  if (entries !== undefined)
    context = otel.propagation.setBaggage(context, otel.propagation.createBaggage(entries));
  return context;
}

/** W3C Baggage: `key=value;property,...`, percent-encoded; malformed members are skipped. */
function parseBaggage(header: string): Record<string, { value: string }> | undefined {
  const entries: Record<string, { value: string }> = {};
  let any = false;
  for (const member of header.split(',')) {
    const [pair] = member.split(';');
    const equals = pair?.indexOf('=') ?? -1;
    if (pair === undefined || equals <= 0) continue;
    try {
      const key = decodeURIComponent(pair.slice(0, equals).trim());
      const value = decodeURIComponent(pair.slice(equals + 1).trim());
      if (key.length === 0) continue;
      entries[key] = { value };
      any = true;
    } catch {
      // A member that is not valid percent-encoding is dropped, the others kept.
    }
  }
  return any ? entries : undefined;
}
