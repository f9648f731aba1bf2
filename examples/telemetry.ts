#!/usr/bin/env node
/**
 * weft with OpenTelemetry: the Node SDK exports traces over OTLP/HTTP and serves the metrics for
 * Prometheus to scrape; weft, which depends on `@opentelemetry/api` alone, reports to whatever the
 * application registered. `npm run build && node dist/examples/telemetry.js`, then call
 * http://127.0.0.1:3000/mcp and read http://127.0.0.1:9464/metrics.
 *
 * Options: --http PORT (default 3000), --metrics-port PORT (default $OTEL_EXPORTER_PROMETHEUS_PORT
 * or 9464). Traces go to $OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318), as every
 * OTLP exporter reads it; a collector or Jaeger listening there shows them.
 */
import { parseArgs } from 'node:util';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { McpServer } from '../lib/index.js';
import fib from './tools/fib.js';

const { values } = parseArgs({
  options: {
    http: { type: 'string', default: '3000' },
    'metrics-port': { type: 'string', default: process.env.OTEL_EXPORTER_PROMETHEUS_PORT ?? '9464' },
  },
});

// First the SDK: weft looks for a tracer and a meter provider when the server is built.
const metrics = new PrometheusExporter({ port: Number(values['metrics-port']) });
const sdk = new NodeSDK({
  serviceName: 'weft-telemetry-example',
  traceExporter: new OTLPTraceExporter(),
  metricReaders: [metrics],
});
sdk.start();

// Then the server: `fib` runs on a pool thread (queue wait and run spans), `greet` inline.
const server = new McpServer({ name: 'weft-telemetry-example', version: '0.1.0' }).tool(fib).tool({
  name: 'greet',
  description: 'Says hello.',
  inputSchema: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] },
  handler: ({ who }) => `Hello, ${who}`,
});

await server.listen({ http: { port: Number(values.http), host: '127.0.0.1' }, handleSignals: false });
// On Ctrl-C: the server stops (its calls end, their spans too), then the SDK sends what it holds.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await server.close();
    // With no collector listening, the last export fails: say so, and stop all the same.
    await sdk.shutdown().catch((error: Error) => process.stderr.write(`OpenTelemetry: ${error.message}\n`));
    process.exit(0);
  });
}
process.stderr.write(
  `weft telemetry example: MCP at http://127.0.0.1:${server.addresses.http?.port}/mcp, ` +
    `metrics at http://127.0.0.1:${values['metrics-port']}/metrics\n`,
);
