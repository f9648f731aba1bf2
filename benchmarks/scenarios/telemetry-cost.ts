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
 */
import { closedLoop } from '../load/closed-loop.js';
import { TELEMETRY_SERVERS } from '../servers/server-catalog.js';
import type { Scenario } from './scenario.js';
import { withServers } from './scenario.js';

export const TELEMETRY_CALLS = [
  { mode: 'inline echo', call: { tool: 'echo', args: { text: 'hello' } } },
  { mode: 'blocking noop', call: { tool: 'noop_blocking', args: {} } },
] as const;
const CONCURRENCY = 16;
const rounds = (quick: boolean) => (quick ? 3 : 7);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

export const telemetryCost: Scenario = {
  name: 'telemetry-cost',
  quick: false,
  steps: (budget) => TELEMETRY_SERVERS.length * TELEMETRY_CALLS.length * rounds(budget.quick),
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
        for (let round = 0; round < rounds(budget.quick); round++) {
          for (let turn = 0; turn < servers.length; turn++) {
            const index = (round + turn) % servers.length;
            const { client, spec } = servers[index]!;
            const result = await closedLoop(client, call, CONCURRENCY, windowMs);
            if (result.failed > 0) context.note(spec.id, 'stdio', `telemetry-cost: ${result.firstFailure}`);
            rates[index]!.push(result.callsPerSecond);
            context.step(`telemetry-cost ${spec.label} ${mode}`);
          }
        }
        const params = { mode, tool: call.tool, concurrency: CONCURRENCY };
        for (const [index, { spec }] of servers.entries()) {
          context.record(spec.id, 'stdio', 'calls_per_s', median(rates[index]!), 'calls/s', params);
          if (index === 0) continue;
          const ratios = rates[0]!.map((off, round) => rates[index]![round]! / off);
          context.record(spec.id, 'stdio', 'ratio_to_off', median(ratios), 'x telemetry: false', params);
        }
      }
    });
  },
};
