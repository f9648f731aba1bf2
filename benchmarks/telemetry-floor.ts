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
 * `node dist/benchmarks/telemetry-floor.js [calls]` (default 200000): about ten seconds. The last
 * line measures weft reporting to the same SDK: the floor plus weft's own part.
 */
import { metrics, trace } from '@opentelemetry/api';
import { McpServer } from '../lib/index.js';
import { registerInMemorySdk } from './servers/in-memory-sdk.js';

const CALLS = Number(process.argv[2] ?? 200_000);

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

async function main(): Promise<void> {
  // The call first, before any provider exists: weft's own path, client included.
  const plain = echoServer(false);
  const call = await cpuPerCall(plain, CALLS);
  await plain.close();

  const stopSdk = registerInMemorySdk();
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
  const traced = echoServer(true);
  const tracedCall = await cpuPerCall(traced, CALLS);
  await traced.close();
  await stopSdk();

  const sdkPerInlineCall = span + 2 * record;
  const fmt = (us: number) => `${us.toFixed(2)} us`;
  console.log(`inline echo call (the server alone, in process, telemetry: false): ${fmt(call)} CPU`);
  console.log(`SDK span start + end (6 attributes, batching processor): ${fmt(span)} CPU`);
  console.log(`SDK histogram record (5 attributes): ${fmt(record)} CPU`);
  console.log(
    `SDK floor per inline call (1 span + 2 records): ${fmt(sdkPerInlineCall)}; best possible ratio ` +
      `${(call / (call + sdkPerInlineCall)).toFixed(3)}x of telemetry: false`,
  );
  console.log(
    `inline echo call reporting to the SDK: ${fmt(tracedCall)} CPU, ${(call / tracedCall).toFixed(3)}x; ` +
      `weft's own part beyond the floor ${fmt(tracedCall - call - sdkPerInlineCall)}`,
  );
}

await main();
