/**
 * middleware-cost (on demand: `npm run bench -- middleware-cost`): inline `echo` calls per second
 * over stdio from weft as is and from weft with one middleware that only calls `next()`, in the
 * same run. The budget is 5% of throughput.
 *
 * The two servers differ in one line, so the difference is small beside the noise of a shared
 * machine: the windows alternate, the order turns each round, and the cost is the median of the
 * rounds' own ratios (both servers measured within the same second), not a ratio of medians.
 */
import { closedLoop } from '../load/closed-loop.js';
import { SERVERS } from '../servers/server-catalog.js';
import { CHEAP_CALL, type Scenario, withServers } from './scenario.js';

const CONCURRENCY = [1, 16];
const ROUNDS = 9;
const pair = () => SERVERS.filter((spec) => spec.id === 'weft' || spec.id === 'weft-middleware');

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

export const middlewareCost: Scenario = {
  name: 'middleware-cost',
  quick: false,
  onDemand: true,
  steps: () => 2 * CONCURRENCY.length * ROUNDS,
  async run(context) {
    const { budget } = context;
    await withServers(context, pair(), 'stdio', {}, CONCURRENCY.length * ROUNDS, async (servers) => {
      if (servers.length !== 2) return;
      for (const { client } of servers) await closedLoop(client, CHEAP_CALL, 16, budget.warmupMs * 2);
      for (const concurrency of CONCURRENCY) {
        const rates: number[][] = [[], []];
        for (let round = 0; round < ROUNDS; round++) {
          for (let turn = 0; turn < 2; turn++) {
            const index = (round + turn) % 2;
            const { client, spec } = servers[index]!;
            const result = await closedLoop(client, CHEAP_CALL, concurrency, budget.windowMs);
            if (result.failed > 0) context.note(spec.id, 'stdio', `middleware-cost: ${result.firstFailure}`);
            rates[index]!.push(result.callsPerSecond);
            context.step(`middleware-cost ${spec.label} c=${concurrency}`);
          }
        }
        const params = { tool: 'echo', concurrency };
        for (const [index, { spec }] of servers.entries()) {
          context.record(spec.id, 'stdio', 'calls_per_s', median(rates[index]!), 'calls/s', params);
        }
        const cost = median(rates[0]!.map((plain, round) => (1 - rates[1]![round]! / plain) * 100));
        context.record('weft-middleware', 'stdio', 'throughput_cost', cost, '% of weft', params);
      }
    });
  },
};
