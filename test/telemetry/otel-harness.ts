/**
 * OpenTelemetry registered for the telemetry tests, as an application would: a tracer provider
 * exporting to memory (SimpleSpanProcessor: a span is there as soon as it ends), a meter provider
 * read on demand, and an AsyncLocalStorage context manager. Registered once per test process,
 * before any server is built (weft decides at construction whether anyone listens).
 */
import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

export const spans = new InMemorySpanExporter();
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({
  exporter: metricExporter,
  exportIntervalMillis: 3_600_000,
});

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));

/** Every span ended so far whose name is `name`. */
export function spansNamed(name: string): ReadableSpan[] {
  return spans.getFinishedSpans().filter((span) => span.name === name);
}

/** Waits until a span named `name` (matching `match`) has ended, and returns it. */
export async function spanEnded(
  name: string,
  match: (span: ReadableSpan) => boolean = () => true,
  timeoutMs = 15_000,
): Promise<ReadableSpan> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = spansNamed(name).find(match);
    if (found) return found;
    if (Date.now() > deadline) {
      const names = spans.getFinishedSpans().map((span) => span.name);
      throw new Error(`no span "${name}" ended within ${timeoutMs} ms; ended: ${names.join(', ')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

/** The children of `span` among the ended spans. */
export function childrenOf(span: ReadableSpan): ReadableSpan[] {
  const id = span.spanContext().spanId;
  return spans.getFinishedSpans().filter((other) => parentOf(other) === id);
}

/** Collects the metrics now (cumulative since the process started). */
export async function collectMetrics(): Promise<ResourceMetrics> {
  await reader.forceFlush();
  const all = metricExporter.getMetrics();
  const last = all.at(-1);
  if (!last) throw new Error('the metric reader exported nothing');
  return last;
}

/** The data points of metric `name`, with their attributes. */
export async function points(
  name: string,
): Promise<Array<{ attributes: Record<string, unknown>; value: unknown }>> {
  const collected = await collectMetrics();
  for (const scope of collected.scopeMetrics) {
    for (const metric of scope.metrics) {
      if (metric.descriptor.name === name) {
        return metric.dataPoints.map((point) => ({
          attributes: point.attributes as Record<string, unknown>,
          value: point.value,
        }));
      }
    }
  }
  return [];
}
