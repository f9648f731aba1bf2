/**
 * telemetry-cost (issue 22, item 5): inline `echo` and blocking `noop_blocking` calls per second
 * over stdio from one weft server under three setups (servers/telemetry-server.ts): `telemetry:
 * false`, the API with no provider registered, and an SDK provider (BatchSpanProcessor into memory
 * plus a meter provider). The targets: no provider >= 0.98x of `telemetry: false`, the SDK
 * provider >= 0.85x (report/telemetry-targets.ts).
 *
 * All three processes are alive at once and measured in turn, the order turning each round, so a
 * noisy neighbour falls on them alike; a setup's ratio is the median of the rounds' own ratios
 * (each measured within seconds of its `telemetry: false` window), not a ratio of medians.
 *
 * A fourth setup is what operators at scale run: the SDK sampling 1% of traces
 * (ParentBased(TraceIdRatioBased(0.01))) with metrics on. Beside calls/s, each window reports the
 * server's CPU µs per call (from /proc); and once per run, in a child process, benchmarks/
 * telemetry-floor.ts prices what the SDK itself charges per inline call and reports weft's own
 * part above that floor, sampling every trace and 1% of them.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { closedLoop } from '../load/closed-loop.js';
import { cpuSeconds } from '../load/process-probe.js';
import { TELEMETRY_SERVERS } from '../servers/server-catalog.js';
import type { Scenario } from './scenario.js';
import { withServers } from './scenario.js';

export const TELEMETRY_CALLS = [
  { mode: 'inline echo', call: { tool: 'echo', args: { text: 'hello' } } },
  { mode: 'blocking noop', call: { tool: 'noop_blocking', args: {} } },
] as const;
const CONCURRENCY = 16;
const rounds = (quick: boolean) => (quick ? 3 : 7);
const FLOOR_SCRIPT = fileURLToPath(new URL('../telemetry-floor.js', import.meta.url));

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

export const telemetryCost: Scenario = {
  name: 'telemetry-cost',
  quick: false,
  steps: (budget) => TELEMETRY_SERVERS.length * TELEMETRY_CALLS.length * rounds(budget.quick) + 1,
  async run(context) {
    const { budget } = context;
    const windowMs = budget.windowMs * 2;
    const perServer = TELEMETRY_CALLS.length * rounds(budget.quick);
    await withServers(context, TELEMETRY_SERVERS, 'stdio', {}, perServer, async (servers) => {
      // The first server is `telemetry: false`, the baseline; without it there is no ratio.
      if (servers.length !== TELEMETRY_SERVERS.length) return;
      for (const { client } of servers) {
        for (const { call } of TELEMETRY_CALLS)
          await closedLoop(client, call, CONCURRENCY, budget.warmupMs * 2);
      }
      for (const { mode, call } of TELEMETRY_CALLS) {
        const rates: number[][] = servers.map(() => []);
        const cpu: number[][] = servers.map(() => []);
        for (let round = 0; round < rounds(budget.quick); round++) {
          for (let turn = 0; turn < servers.length; turn++) {
            const index = (round + turn) % servers.length;
            const { client, spec, pid } = servers[index]!;
            const before = cpuSeconds(pid);
            const result = await closedLoop(client, call, CONCURRENCY, windowMs);
            const after = cpuSeconds(pid);
            if (before !== undefined && after !== undefined && result.completed > 0)
              cpu[index]!.push(((after - before) * 1e6) / result.completed);
            if (result.failed > 0) context.note(spec.id, 'stdio', `telemetry-cost: ${result.firstFailure}`);
            rates[index]!.push(result.callsPerSecond);
            context.step(`telemetry-cost ${spec.label} ${mode}`);
          }
        }
        const params = { mode, tool: call.tool, concurrency: CONCURRENCY };
        for (const [index, { spec }] of servers.entries()) {
          context.record(spec.id, 'stdio', 'calls_per_s', median(rates[index]!), 'calls/s', params);
          if (cpu[index]!.length > 0)
            context.record(spec.id, 'stdio', 'cpu_us_per_call', median(cpu[index]!), 'µs', {
              ...params,
              note: 'server process CPU from /proc',
            });
          if (index === 0) continue;
          const ratios = rates[0]!.map((off, round) => rates[index]![round]! / off);
          context.record(spec.id, 'stdio', 'ratio_to_off', median(ratios), 'x telemetry: false', params);
        }
      }
    });
    await recordFloor(context);
  },
};

/** Runs telemetry-floor.ts in a child (it registers SDKs globally) and records weft's own part. */
async function recordFloor(context: Parameters<Scenario['run']>[0]): Promise<void> {
  const calls = context.budget.quick ? 30_000 : 100_000;
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [FLOOR_SCRIPT, String(calls), '--json'], {
      timeout: 120_000,
    });
    const floor = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      callUs: number;
      alwaysOn: { floorUs: number; tracedUs: number; ownUs: number };
      sampled1pct: { floorUs: number; tracedUs: number; ownUs: number };
    };
    const params = { mode: 'inline echo', note: 'in process, CPU time (telemetry-floor.ts)' };
    const [off, always, sampled] = [
      'weft-telemetry-off',
      'weft-telemetry-sdk',
      'weft-telemetry-sampled',
    ] as const;
    context.record(off, 'stdio', 'in_process_call_us', floor.callUs, 'µs', params);
    context.record(always, 'stdio', 'sdk_floor_us', floor.alwaysOn.floorUs, 'µs', params);
    context.record(always, 'stdio', 'weft_own_us_over_floor', floor.alwaysOn.ownUs, 'µs', params);
    context.record(sampled, 'stdio', 'sdk_floor_us', floor.sampled1pct.floorUs, 'µs', params);
    context.record(sampled, 'stdio', 'weft_own_us_over_floor', floor.sampled1pct.ownUs, 'µs', params);
  } catch (error) {
    context.note('weft-telemetry-sdk', 'stdio', `telemetry floor not measured: ${(error as Error).message}`);
  }
  context.step('telemetry-cost floor');
}
