/**
 * `@opentelemetry/api`, if the application has it: weft's one way to reach OpenTelemetry.
 *
 * The API is an optional peer dependency (OpenTelemetry's guidance for libraries): an application
 * that never installed it runs weft exactly as before. It is loaded with a synchronous require
 * inside a try, once per thread, so a server can decide at construction whether anything is
 * listening; the API keeps its registered providers on a process-wide global keyed by its major
 * version, so this copy sees what the application's ESM or CommonJS copy registered.
 *
 * Only types come from the package at compile time; nothing here is in weft's public types, so an
 * application without the package type-checks too.
 */
import { createRequire } from 'node:module';
import type * as OtelApiModule from '@opentelemetry/api';

export type OtelApi = typeof OtelApiModule;

let api: OtelApi | null | undefined;

/** The API, or undefined when it is not installed (or failed to load). */
export function otelApi(): OtelApi | undefined {
  if (api === undefined) {
    try {
      api = createRequire(import.meta.url)('@opentelemetry/api') as OtelApi;
    } catch {
      api = null;
    }
  }
  return api ?? undefined;
}

/**
 * Whether any copy of the API (major version 1) has registered anything in this process: the API
 * keeps its registrations on a global keyed by major version, created at the first one. Without
 * it no provider exists, and the API need not be loaded at all (44 modules at every start).
 */
export function apiRegistryExists(): boolean {
  return (globalThis as Record<symbol, unknown>)[Symbol.for('opentelemetry.js.api.1')] !== undefined;
}

/** Whether the application registered a tracer provider (the API's own is a no-op proxy). */
export function hasTracerProvider(otel: OtelApi): boolean {
  const provider = otel.trace.getTracerProvider();
  const real = provider instanceof otel.ProxyTracerProvider ? provider.getDelegate() : provider;
  return real !== NOOP_TRACER_PROVIDER(otel);
}

/** Whether the application registered a meter provider. */
export function hasMeterProvider(otel: OtelApi): boolean {
  return otel.metrics.getMeterProvider().getMeter('weft') !== otel.createNoopMeter();
}

/** The API's no-op tracer provider: what an unset proxy delegates to. */
function NOOP_TRACER_PROVIDER(otel: OtelApi): unknown {
  return new otel.ProxyTracerProvider().getDelegate();
}
