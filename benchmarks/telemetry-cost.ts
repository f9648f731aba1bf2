/**
 * What telemetry costs: inline echo and blocking noop throughput, in one process, with no
 * provider registered, with `telemetry: false`, and with an SDK provider (BatchSpanProcessor into
 * memory, a meter provider) registered. In-process client (no transport: the figures are the
 * router's and engine's own cost), bounded counts. `node dist/benchmarks/telemetry-cost.js [rounds]`.
 *
 * The configurations alternate round by round, so a noisy neighbour hurts them alike; the figure
 * reported per configuration is its best round's throughput.
 */
import { pathToFileURL } from 'node:url';
import { metrics, trace } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { defineTool, McpServer } from '../lib/index.js';
import { InProcessClient } from '../test/support/in-process-client.js';

export const noop = defineTool({
  name: 'noop',
  inputSchema: { type: 'object' },
  blocking: true,
  module: import.meta.url,
  handler: () => 'ok',
});

const INLINE_CALLS = 4_000;
const BLOCKING_CALLS = 1_500;
const IN_FLIGHT = 32;

async function throughput(server: McpServer, tool: string, calls: number): Promise<number> {
  const client = new InProcessClient(server);
  await client.request('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'b', version: '0' },
  });
  let sent = 0;
  const started = performance.now();
  const lane = async () => {
    while (sent < calls) {
      sent++;
      await client.request('tools/call', { name: tool, arguments: {} });
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  const seconds = (performance.now() - started) / 1000;
  client.close();
  return calls / seconds;
}

function build(telemetry?: boolean): McpServer {
  return new McpServer({
    name: 'bench',
    version: '0',
    pool: { maxThreads: 2 },
    ...(telemetry === undefined ? {} : { telemetry }),
  })
    .tool({ name: 'echo', inputSchema: { type: 'object' }, handler: (args) => args })
    .tool(noop);
}

let sdk: { spans: InMemorySpanExporter; shutdown(): Promise<void> } | undefined;
function registerSdk(): void {
  const spans = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(spans)] });
  const reader = new PeriodicExportingMetricReader({
    exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
    exportIntervalMillis: 60_000,
  });
  const meter = new MeterProvider({ readers: [reader] });
  trace.setGlobalTracerProvider(tracer);
  metrics.setGlobalMeterProvider(meter);
  sdk = {
    spans,
    shutdown: async () => {
      await Promise.all([tracer.shutdown(), meter.shutdown()]);
      trace.disable();
      metrics.disable();
    },
  };
}

type Config = 'no provider' | 'telemetry: false' | 'SDK provider';
const CONFIGS: Config[] = ['no provider', 'telemetry: false', 'SDK provider'];

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 3);
  const best: Record<string, number> = {};
  for (let round = 0; round < rounds; round++) {
    for (const config of CONFIGS) {
      if (config === 'SDK provider') registerSdk();
      const server = build(config === 'telemetry: false' ? false : undefined);
      await throughput(server, 'noop', 200); // warm the pool and the JIT
      for (const [tool, calls] of [
        ['echo', INLINE_CALLS],
        ['noop', BLOCKING_CALLS],
      ] as const) {
        const rate = await throughput(server, tool, calls);
        const key = `${tool} | ${config}`;
        best[key] = Math.max(best[key] ?? 0, rate);
        process.stderr.write(`round ${round + 1} ${key}: ${rate.toFixed(0)} calls/s\n`);
      }
      await server.close();
      if (config === 'SDK provider') {
        sdk?.spans.reset();
        await sdk?.shutdown();
      }
    }
  }
  for (const tool of ['echo', 'noop']) {
    const off = best[`${tool} | telemetry: false`]!;
    const none = best[`${tool} | no provider`]!;
    const on = best[`${tool} | SDK provider`]!;
    console.log(
      `${tool === 'echo' ? 'inline echo ' : 'blocking noop'}: telemetry:false ${off.toFixed(0)}/s, no provider ${none.toFixed(0)}/s (${(none / off).toFixed(3)}x), SDK provider ${on.toFixed(0)}/s (${(on / off).toFixed(3)}x)`,
    );
  }
}

// The pool threads import this module for the noop tool: only the entry point runs the benchmark.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
