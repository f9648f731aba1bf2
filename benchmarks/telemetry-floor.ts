/**
 * What bounds the telemetry cost with an SDK registered (issue 22, item 5): the SDK's own price for
 * one span and one histogram measurement, beside the price of one whole inline call, all measured
 * in this process by CPU time (less swayed by a busy neighbour than throughput is).
 *
 * Per inline tools/call weft asks the SDK for one SERVER span and two measurements (the
 * conventions' operation duration and weft's run time); a blocking call adds a run span, a queue
 * span when it waited and a queue-wait measurement. From those prices this prints the best ratio
 * any instrumentation could reach: call / (call + what the SDK charges for it), before weft's own
 * part and before the garbage the spans leave for later.
 *
 * `node dist/benchmarks/telemetry-floor.js [calls] [--json]` (default 200000): about ten seconds.
 * The last lines measure weft reporting to the same SDK, sampling every trace and then 1% of them
 * (ParentBased(TraceIdRatioBased(0.01)), metrics on): the floor plus weft's own part. `--json`
 * prints the figures as one JSON line instead (the telemetry-cost scenario reads it).
 */
import { metrics, trace } from '@opentelemetry/api';
import { McpServer } from '../lib/index.js';
import { registerInMemorySdk } from './servers/in-memory-sdk.js';

const JSON_OUTPUT = process.argv.includes('--json');
const CALLS = Number(process.argv.slice(2).find((arg) => arg !== '--json') ?? 200_000);

/** CPU microseconds per run of `work`, after a warm-up (user + system, this process's threads). */
function cpuPer(work: () => void, runs: number): number {
  for (let i = 0; i < Math.min(runs, 20_000); i++) work();
  const before = process.cpuUsage();
  for (let i = 0; i < runs; i++) work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / runs;
}

/**
 * CPU per inline tools/call of the server alone: messages handed to its connection as parsed
 * objects and answers taken from its sink, no client, no transport, no JSON text.
 */
async function cpuPerCall(server: McpServer, calls: number): Promise<number> {
  const waiting = new Map<number, () => void>();
  const connection = server.connect({
    send: (message) => {
      for (const one of [message].flat()) {
        if ('id' in one && !('method' in one)) waiting.get(one.id as number)?.();
      }
    },
  });
  let nextId = 0;
  const request = (method: string, params: Record<string, unknown>) =>
    new Promise<void>((resolve) => {
      const id = ++nextId;
      waiting.set(id, () => {
        waiting.delete(id);
        resolve();
      });
      void connection.receive({ jsonrpc: '2.0', id, method, params });
    });
  await request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'telemetry-floor', version: '0' },
  });
  void connection.receive({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const loop = async (n: number) => {
    const workers = Array.from({ length: 16 }, async () => {
      for (let i = 0; i < n / 16; i++) {
        await request('tools/call', { name: 'echo', arguments: { text: 'hello' } });
      }
    });
    await Promise.all(workers);
  };
  await loop(Math.min(calls, 20_000));
  const before = process.cpuUsage();
  await loop(calls);
  const used = process.cpuUsage(before);
  connection.close();
  return (used.user + used.system) / calls;
}

const echoServer = (telemetry: boolean) =>
  new McpServer({ name: 'telemetry-floor', version: '0.1.0', telemetry }).tool({
    name: 'echo',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    handler: ({ text }) => String(text),
  });

/** The SDK's price for what weft asks of it per inline call, and weft's call reporting to it. */
interface UnderSdk {
  /** CPU µs of one span started and ended, and of one histogram record, in the SDK alone. */
  span: number;
  record: number;
  /** What the SDK charges for what weft asks per inline call: 1 span + 2 records. */
  floor: number;
  /** CPU µs of one inline call of weft reporting to this SDK. */
  traced: number;
}

async function underSdk(sampleRatio: number | undefined): Promise<UnderSdk> {
  const stopSdk = registerInMemorySdk(sampleRatio === undefined ? {} : { sampleRatio });
  const tracer = trace.getTracer('telemetry-floor');
  const histogram = metrics.getMeter('telemetry-floor').createHistogram('floor', { unit: 's' });
  // The attribute sets weft reports for an inline tools/call (request-telemetry.ts).
  const measured = {
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': 'echo',
    'gen_ai.operation.name': 'execute_tool',
    'mcp.protocol.version': '2025-06-18',
    'network.transport': 'pipe',
  };
  const spanAttributes = { ...measured, 'jsonrpc.request.id': '1' };
  const span = cpuPer(
    () => tracer.startSpan('tools/call echo', { kind: 1, attributes: spanAttributes }).end(),
    CALLS,
  );
  const record = cpuPer(() => histogram.record(0.001, measured), CALLS);
  // And weft itself reporting to that SDK: the floor plus weft's own part.
  const server = echoServer(true);
  const traced = await cpuPerCall(server, CALLS);
  await server.close();
  await stopSdk();
  return { span, record, floor: span + 2 * record, traced };
}

async function main(): Promise<void> {
  // The call first, before any provider exists: weft's own path, client included.
  const plain = echoServer(false);
  const call = await cpuPerCall(plain, CALLS);
  await plain.close();
  const always = await underSdk(undefined);
  const sampled = await underSdk(0.01);
  const own = (setup: UnderSdk) => setup.traced - call - setup.floor;
  if (JSON_OUTPUT) {
    process.stdout.write(
      `${JSON.stringify({
        callUs: call,
        alwaysOn: { floorUs: always.floor, tracedUs: always.traced, ownUs: own(always) },
        sampled1pct: { floorUs: sampled.floor, tracedUs: sampled.traced, ownUs: own(sampled) },
      })}\n`,
    );
    return;
  }
  const fmt = (us: number) => `${us.toFixed(2)} us`;
  console.log(`inline echo call (the server alone, in process, telemetry: false): ${fmt(call)} CPU`);
  console.log(`SDK span start + end (6 attributes, batching processor): ${fmt(always.span)} CPU`);
  console.log(`SDK histogram record (5 attributes): ${fmt(always.record)} CPU`);
  console.log(
    `SDK floor per inline call (1 span + 2 records): ${fmt(always.floor)}; best possible ratio ` +
      `${(call / (call + always.floor)).toFixed(3)}x of telemetry: false`,
  );
  for (const [label, setup] of [
    ['sampling every trace', always],
    ['sampling 1% (ParentBased(TraceIdRatioBased(0.01)))', sampled],
  ] as const) {
    console.log(
      `inline echo call reporting to the SDK, ${label}: ${fmt(setup.traced)} CPU, ` +
        `${(call / setup.traced).toFixed(3)}x; SDK floor ${fmt(setup.floor)}, weft's own part beyond it ${fmt(own(setup))}`,
    );
  }
}

await main();
