/**
 * The core promise, checked the way a user would see it: the official SDK client over stdio against
 * weft's demo and, in the same run, against the official SDK's own server.
 *
 *   npm run bench:sdk-client
 *
 * 1. eight `spin {ms: 50}` calls kept in flight; meanwhile `echo` every 20 ms: its p50/p99, and spin
 *    calls per second;
 * 2. weft only: `spin {ms: 600000}` against its 2 s deadline, then `fib {n: 20}` at once;
 * 3. weft only: two runaway spins cancelled by the client, then the server's CPU over one second.
 *
 * Unlike the load generator (benchmarks/load), this uses the SDK client on purpose: it is what the
 * brief's figures were measured with. Bounded: about 30 s, 127.0.0.1 only, children closed at the end.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const WEFT_DEMO = fileURLToPath(new URL('../examples/demo-server.js', import.meta.url));
const SDK_PEER = fileURLToPath(new URL('./peers/sdk-server.js', import.meta.url));
const LONG = { timeout: 3_600_000 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function connect(script: string, args: string[]): Promise<{ client: Client; pid: number }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [script, ...args],
    stderr: 'ignore',
  });
  const client = new Client({ name: 'weft-sdk-client-check', version: '1.0.0' });
  await client.connect(transport);
  return { client, pid: transport.pid ?? -1 };
}

async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

async function underSpinLoad(client: Client, seconds: number) {
  let stop = false;
  let spins = 0;
  const spinner = async () => {
    while (!stop) {
      await client.callTool({ name: 'spin', arguments: { ms: 50 } }, undefined, LONG);
      spins++;
    }
  };
  const spinners = Array.from({ length: 8 }, spinner);
  await sleep(1_000); // warm-up
  const latencies: number[] = [];
  const spinsBefore = spins;
  const started = Date.now();
  while (Date.now() - started < seconds * 1_000) {
    const sent = performance.now();
    await client.callTool({ name: 'echo', arguments: { text: 'ping' } }, undefined, LONG);
    latencies.push(performance.now() - sent);
    await sleep(20);
  }
  const spinsPerSecond = (spins - spinsBefore) / ((Date.now() - started) / 1_000);
  stop = true;
  await Promise.all(spinners);
  latencies.sort((a, b) => a - b);
  return {
    echoes: latencies.length,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    spinsPerSecond,
  };
}

const round = (value: number, digits = 1) => Number(value.toFixed(digits));

const weft = await connect(WEFT_DEMO, ['--stdio', '--threads', '2']);
const sdk = await connect(SDK_PEER, ['--stdio']);
try {
  const weftLoad = await underSpinLoad(weft.client, 10);
  const sdkLoad = await underSpinLoad(sdk.client, 10);

  const runawayStarted = Date.now();
  const runaway = await weft.client.callTool({ name: 'spin', arguments: { ms: 600_000 } }, undefined, LONG);
  const runawayMs = Date.now() - runawayStarted;
  const fibStarted = Date.now();
  await weft.client.callTool({ name: 'fib', arguments: { n: 20 } }, undefined, LONG);
  const fibMs = Date.now() - fibStarted;

  const controllers = [new AbortController(), new AbortController()];
  const cancelled = controllers.map((controller) =>
    weft.client
      .callTool({ name: 'spin', arguments: { ms: 600_000 } }, undefined, {
        ...LONG,
        signal: controller.signal,
      })
      .catch(() => 'cancelled'),
  );
  await sleep(300);
  for (const controller of controllers) controller.abort();
  await Promise.all(cancelled);
  await sleep(500);
  const cpuBefore = await cpuSeconds(weft.pid);
  await sleep(1_000);
  const cpuAfterCancel = (await cpuSeconds(weft.pid)) - cpuBefore;

  const report = {
    weft: {
      echoP50Ms: round(weftLoad.p50, 2),
      echoP99Ms: round(weftLoad.p99, 2),
      spinPerSecond: round(weftLoad.spinsPerSecond),
    },
    officialSdk: {
      echoP50Ms: round(sdkLoad.p50, 2),
      echoP99Ms: round(sdkLoad.p99, 2),
      spinPerSecond: round(sdkLoad.spinsPerSecond),
    },
    spinThroughputRatio: round(weftLoad.spinsPerSecond / sdkLoad.spinsPerSecond, 2),
    runawayAnsweredAfterMs: runawayMs,
    runawayIsTimeout: runaway.isError === true,
    fibAfterRunawayMs: fibMs,
    cpuSecondsInTheSecondAfterTwoCancels: round(cpuAfterCancel, 2),
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} finally {
  await Promise.all([weft.client.close(), sdk.client.close()]);
}
