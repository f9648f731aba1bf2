/**
 * The server of the telemetry-cost scenario (scenarios/telemetry-cost.ts), on stdio only: inline
 * `echo` and the blocking `noop_blocking`, under one of three telemetry setups named by
 * `--telemetry`: `none` (the API installed, no provider registered), `off` (`telemetry: false`) or
 * `sdk` (a tracer provider with a BatchSpanProcessor into memory and a meter provider, registered
 * before the server is built, as an application would), or `sdk-sampled` (the same with the
 * sampler operators at scale run: ParentBased(TraceIdRatioBased(0.01))).
 */
import { parseArgs } from 'node:util';
import { McpServer } from '../../lib/index.js';
import { UNSUPPORTED_TRANSPORT_EXIT } from '../peers/peer-options.js';
import { registerInMemorySdk } from './in-memory-sdk.js';
import noopBlocking from './noop-blocking.js';

const { values } = parseArgs({
  options: {
    stdio: { type: 'boolean', default: false },
    http: { type: 'string' },
    ws: { type: 'string' },
    telemetry: { type: 'string', default: 'none' },
  },
  strict: true,
});
if (!values.stdio) {
  process.stderr.write('telemetry-server serves stdio only\n');
  process.exit(UNSUPPORTED_TRANSPORT_EXIT);
}
const setup = values.telemetry;
if (setup !== 'off' && setup !== 'none' && setup !== 'sdk' && setup !== 'sdk-sampled') {
  process.stderr.write(
    `telemetry-server: --telemetry takes off, none, sdk or sdk-sampled (got ${JSON.stringify(setup)})\n`,
  );
  process.exit(2);
}
if (setup === 'sdk') registerInMemorySdk();
if (setup === 'sdk-sampled') registerInMemorySdk({ sampleRatio: 0.01 });

await new McpServer({ name: 'weft-telemetry-bench', version: '0.1.0', telemetry: setup !== 'off' })
  .tool({
    name: 'echo',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    handler: ({ text }) => String(text),
  })
  .tool(noopBlocking)
  .listen({ stdio: true });
