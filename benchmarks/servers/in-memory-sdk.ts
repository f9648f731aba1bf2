/**
 * The OpenTelemetry SDK the telemetry benchmarks register, as an application would: a tracer
 * provider with a BatchSpanProcessor into memory and a meter provider with a periodic reader into
 * memory. Exported spans are dropped every second, so memory stays bounded however long it runs.
 * `sampleRatio` sets the sampler operators at scale run, ParentBased(TraceIdRatioBased(ratio));
 * without it every span is sampled (the SDK's default, ParentBased(AlwaysOn)).
 */
import { metrics, trace } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';

/**
 * Registers the SDK globally; the returned function stops its reader and its span dropping and
 * unregisters both providers (so that another setup may be registered in the same process).
 */
export function registerInMemorySdk(options: { sampleRatio?: number } = {}): () => Promise<void> {
  const spans = new InMemorySpanExporter();
  const sampler =
    options.sampleRatio === undefined
      ? {}
      : { sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(options.sampleRatio) }) };
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(spans)], ...sampler }),
  );
  const reader = new PeriodicExportingMetricReader({
    exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
    exportIntervalMillis: 1_000,
  });
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  const dropExported = setInterval(() => spans.reset(), 1_000);
  dropExported.unref();
  return async () => {
    clearInterval(dropExported);
    await reader.shutdown();
    trace.disable();
    metrics.disable();
  };
}
