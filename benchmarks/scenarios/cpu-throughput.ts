/**
 * cpu-throughput: CPU-tool calls per second at rising concurrency, and how throughput scales with
 * the pool's size (1 thread up to the machine's cores) for the servers that have a pool. A server
 * that runs CPU work on its event loop cannot go past one core whatever the concurrency.
 */
import { closedLoop } from '../load/closed-loop.js';
import { HEAVY_CALL, medians, type Scenario, withServer } from './scenario.js';

const levels = (quick: boolean, cores: number) => (quick ? [1, 2 * cores] : [1, 2, 4, 8, 16]);
const poolSizes = (cores: number) => Array.from({ length: cores }, (_, i) => i + 1);

export const cpuThroughput: Scenario = {
  name: 'cpu-throughput',
  quick: true,
  steps: (budget, servers, cores) =>
    servers.length * levels(budget.quick, cores).length * budget.repeats +
    servers.filter((spec) => spec.hasPool).length * poolSizes(cores).length * budget.repeats,
  async run(context) {
    const { budget, cores } = context;
    const params = { tool: 'hash_chain', rounds: 20_000 };
    for (const spec of context.servers) {
      const concurrencies = levels(budget.quick, cores);
      await withServer(
        context,
        spec,
        'stdio',
        {},
        concurrencies.length * budget.repeats,
        async ({ client }) => {
          await closedLoop(client, HEAVY_CALL, cores, budget.warmupMs);
          for (const concurrency of concurrencies) {
            const samples = [];
            for (let repeat = 0; repeat < budget.repeats; repeat++) {
              const result = await closedLoop(client, HEAVY_CALL, concurrency, budget.windowMs);
              if (result.failed > 0) context.note(spec.id, 'stdio', `cpu-throughput: ${result.firstFailure}`);
              const latency = result.latency.summary();
              samples.push({ rate: result.callsPerSecond, p50: latency.p50Ms });
              context.step(`cpu-throughput ${spec.label} c=${concurrency}`);
            }
            const m = medians(samples);
            context.record(spec.id, 'stdio', 'calls_per_s', m.rate, 'calls/s', { ...params, concurrency });
            context.record(spec.id, 'stdio', 'call_p50', m.p50, 'ms', { ...params, concurrency });
          }
        },
      );
    }
    // Scaling with pool size: enough calls in flight to fill the largest pool twice over.
    for (const spec of context.servers.filter((server) => server.hasPool)) {
      for (const threads of poolSizes(cores)) {
        await withServer(context, spec, 'stdio', { threads }, budget.repeats, async ({ client }) => {
          await closedLoop(client, HEAVY_CALL, threads, budget.warmupMs);
          const samples = [];
          for (let repeat = 0; repeat < budget.repeats; repeat++) {
            const result = await closedLoop(client, HEAVY_CALL, 2 * cores, budget.windowMs);
            samples.push({ rate: result.callsPerSecond });
            context.step(`cpu-throughput ${spec.label} threads=${threads}`);
          }
          context.record(spec.id, 'stdio', 'calls_per_s_by_pool', medians(samples).rate, 'calls/s', {
            ...params,
            threads,
            concurrency: 2 * cores,
          });
        });
      }
    }
  },
};
