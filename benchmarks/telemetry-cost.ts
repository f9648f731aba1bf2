/**
 * What telemetry costs (issue 22, item 5): inline `echo` and blocking `noop_blocking` throughput
 * over stdio with no provider registered, with `telemetry: false`, and with an SDK provider
 * (BatchSpanProcessor into memory, plus a meter provider). One server process per setup
 * (benchmarks/servers/telemetry-server.ts), all alive at once and measured in turn, round after
 * round, so a noisy neighbour hurts them alike; the median of the rounds is reported, with each
 * setup's ratio to `telemetry: false`.
 *
 * `node dist/benchmarks/telemetry-cost.js [rounds] [windowMs]` (defaults 5 and 1500): about
 * rounds x 6 x windowMs, plus a few seconds of start-up.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { closedLoop } from './load/closed-loop.js';
import { LoadClient } from './load/load-client.js';
import { StdioWire } from './load/stdio-wire.js';

const SERVER = fileURLToPath(new URL('./servers/telemetry-server.js', import.meta.url));
const SETUPS = ['off', 'none', 'sdk'] as const;
const LABEL: Record<(typeof SETUPS)[number], string> = {
  off: 'telemetry: false',
  none: 'no provider',
  sdk: 'SDK provider',
};
const CALLS = [
  { name: 'inline echo', call: { tool: 'echo', args: { text: 'hello' } } },
  { name: 'blocking noop', call: { tool: 'noop_blocking', args: {} } },
] as const;
const CONCURRENCY = 16;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 5);
  const windowMs = Number(process.argv[3] ?? 1_500);
  const servers = await Promise.all(
    SETUPS.map(async (setup) => {
      const child = spawn(process.execPath, [SERVER], {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...process.env, WEFT_BENCH_TELEMETRY: setup },
      });
      child.stderr.pipe(process.stderr);
      const client = new LoadClient(new StdioWire(child));
      await client.initialize();
      for (const { call } of CALLS) await closedLoop(client, call, CONCURRENCY, 500); // warm-up
      return { setup, child, client };
    }),
  );
  const rates = new Map<string, number[]>();
  try {
    for (let round = 0; round < rounds; round++) {
      for (const { name, call } of CALLS) {
        for (const { setup, client } of servers) {
          const result = await closedLoop(client, call, CONCURRENCY, windowMs);
          if (result.failed > 0) throw new Error(`${LABEL[setup]} ${name}: ${result.firstFailure}`);
          const key = `${name}|${setup}`;
          rates.set(key, [...(rates.get(key) ?? []), result.callsPerSecond]);
        }
      }
    }
  } finally {
    for (const { child } of servers) child.kill();
  }
  for (const { name } of CALLS) {
    const off = median(rates.get(`${name}|off`)!);
    const parts = SETUPS.map((setup) => {
      const rate = median(rates.get(`${name}|${setup}`)!);
      const all = rates
        .get(`${name}|${setup}`)!
        .map((r) => r.toFixed(0))
        .join(' ');
      return `${LABEL[setup]} ${rate.toFixed(0)}/s (${(rate / off).toFixed(3)}x; rounds: ${all})`;
    });
    console.log(`${name}, c=${CONCURRENCY}, stdio: ${parts.join('; ')}`);
  }
}

await main();
