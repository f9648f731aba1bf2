/**
 * Measures what `isolation: 'process'` costs per call against a pool thread, over raw stdio against
 * the fault server: the same tiny handler (`add_in_thread` / `add_in_process`), called sequentially
 * (latency) and 2-wide (throughput), after a warm-up, plus the cold start of a fresh process.
 * Not a test: run it by hand and copy the figures into docs/failure-semantics.md.
 *
 *   node dist/test/faults/isolation-cost.js [calls]
 */
import { fileURLToPath } from 'node:url';
import { RawStdioClient } from './raw-stdio-client.js';

const SERVER = fileURLToPath(new URL('./fault-server.js', import.meta.url));
const CALLS = Number(process.argv[2] ?? 2_000);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function sequential(client: RawStdioClient, tool: string, calls: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const start = performance.now();
    await client.call(tool, { a: i, b: 1 });
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b);
}

async function throughput(client: RawStdioClient, tool: string, calls: number): Promise<number> {
  const start = performance.now();
  let next = 0;
  const lane = async () => {
    while (next < calls) {
      next++;
      await client.call(tool, { a: next, b: 1 });
    }
  };
  await Promise.all([lane(), lane()]);
  return calls / ((performance.now() - start) / 1000);
}

const client = new RawStdioClient(SERVER, ['--threads', '2']);
await client.initialize();
const coldStart = performance.now();
await client.call('add_in_process', { a: 0, b: 0 });
const cold = performance.now() - coldStart;
for (const tool of ['add_in_thread', 'add_in_process']) await sequential(client, tool, 200);

// The call right after a process was killed at its deadline: does it wait for a new process?
await client.call('exec_sleep_process', { seconds: '5' });
await new Promise((resolve) => setTimeout(resolve, 600));
const afterKillStart = performance.now();
await client.call('add_in_process', { a: 1, b: 1 });
const afterKill = performance.now() - afterKillStart;

const rows: string[] = [];
for (const tool of ['add_in_thread', 'add_in_process']) {
  const times = await sequential(client, tool, CALLS);
  const rate = await throughput(client, tool, CALLS);
  rows.push(
    `| ${tool} | ${percentile(times, 50).toFixed(3)} | ${percentile(times, 99).toFixed(3)} | ${rate.toFixed(0)} |`,
  );
}
process.stdout.write(
  `${CALLS} calls each, node ${process.version}\n` +
    '| tool | p50 ms | p99 ms | calls/s (2 in flight) |\n| --- | --- | --- | --- |\n' +
    `${rows.join('\n')}\ncold start of a pool process (first call): ${cold.toFixed(0)} ms\n` +
    `first call 600 ms after a process was killed at its deadline: ${afterKill.toFixed(1)} ms\n`,
);
client.kill();
