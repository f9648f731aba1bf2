/**
 * cpu-throughput: CPU-tool calls per second at rising concurrency, and how throughput scales with
 * the pool's size (1 thread up to the machine's cores) for the servers that have a pool. A server
 * that runs CPU work on its event loop cannot go past one core whatever the concurrency.
 */
import { closedLoop } from '../load/closed-loop.js';
import { HEAVY_CALL, interleaved, medians, type Scenario, withServers } from './scenario.js';

const levels = (quick: boolean, cores: number) => (quick ? [1, 2 * cores] : [1, 2, 4, 8, 16]);
/** Pool sizes to compare; the quick run skips the scaling sweep (each size needs fresh servers). */
const poolSizes = (quick: boolean, cores: number) =>
  quick ? [] : Array.from({ length: cores }, (_, i) => i + 1);
const PARAMS = { tool: 'hash_chain', rounds: HEAVY_CALL.args.rounds };

export const cpuThroughput: Scenario = {
  name: 'cpu-throughput',
  quick: true,
  steps: (budget, servers, cores) =>
    servers.length * levels(budget.quick, cores).length * budget.repeats +
    servers.filter((spec) => spec.hasPool).length * poolSizes(budget.quick, cores).length * budget.repeats,
  async run(context) {
    const { budget, cores } = context;
    const concurrencies = levels(budget.quick, cores);
    await withServers(
      context,
      context.servers,
      'stdio',
      {},
      concurrencies.length * budget.repeats,
      async (servers) => {
        for (const { client } of servers) await closedLoop(client, HEAVY_CALL, cores, budget.warmupMs);
        for (const concurrency of concurrencies) {
          const samples = await interleaved(servers, budget.repeats, async ({ client, spec }) => {
            const result = await closedLoop(client, HEAVY_CALL, concurrency, budget.windowMs);
            if (result.failed > 0) context.note(spec.id, 'stdio', `cpu-throughput: ${result.firstFailure}`);
            context.step(`cpu-throughput ${spec.label} c=${concurrency}`);
            return { rate: result.callsPerSecond, p50: result.latency.summary().p50Ms };
          });
          for (const [index, { spec }] of servers.entries()) {
            const m = medians(samples[index]!);
            context.record(spec.id, 'stdio', 'calls_per_s', m.rate, 'calls/s', { ...PARAMS, concurrency });
            context.record(spec.id, 'stdio', 'call_p50', m.p50, 'ms', { ...PARAMS, concurrency });
          }
        }
      },
    );
    // Scaling with pool size: enough calls in flight to fill the largest pool twice over.
    const pooled = context.servers.filter((spec) => spec.hasPool);
    for (const threads of poolSizes(budget.quick, cores)) {
      await withServers(context, pooled, 'stdio', { threads }, budget.repeats, async (servers) => {
        for (const { client } of servers) await closedLoop(client, HEAVY_CALL, threads, budget.warmupMs);
        const samples = await interleaved(servers, budget.repeats, async ({ client, spec }) => {
          const result = await closedLoop(client, HEAVY_CALL, 2 * cores, budget.windowMs);
          context.step(`cpu-throughput ${spec.label} threads=${threads}`);
          return { rate: result.callsPerSecond };
        });
        for (const [index, { spec }] of servers.entries()) {
          context.record(spec.id, 'stdio', 'calls_per_s_by_pool', medians(samples[index]!).rate, 'calls/s', {
            ...PARAMS,
            threads,
            concurrency: 2 * cores,
          });
        }
      });
    }
  },
};
