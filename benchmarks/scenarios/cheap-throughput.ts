/**
 * cheap-throughput: inline `echo` calls per second at concurrency 1, 16 and 64 over each transport.
 * This is the router's and the transport's own cost, with no tool work to hide it. A server without
 * a transport is skipped with a note (the official SDK and FastMCP have no WebSocket server).
 */
import { closedLoop } from '../load/closed-loop.js';
import type { TransportName } from '../load/wire.js';
import { CHEAP_CALL, interleaved, medians, type Scenario, withServers } from './scenario.js';

const CONCURRENCY = [1, 16, 64];
const transports = (quick: boolean): TransportName[] => (quick ? ['stdio'] : ['stdio', 'http', 'ws']);

export const cheapThroughput: Scenario = {
  name: 'cheap-throughput',
  quick: true,
  steps: (budget, servers) =>
    servers.length * transports(budget.quick).length * CONCURRENCY.length * budget.repeats,
  async run(context) {
    const { budget } = context;
    const windowMs = budget.windowMs / 2; // thousands of calls per window: half is plenty
    for (const transport of transports(budget.quick)) {
      const stepsPerServer = CONCURRENCY.length * budget.repeats;
      await withServers(context, context.servers, transport, {}, stepsPerServer, async (servers) => {
        for (const { client } of servers) await closedLoop(client, CHEAP_CALL, 16, budget.warmupMs);
        for (const concurrency of CONCURRENCY) {
          const samples = await interleaved(servers, budget.repeats, async ({ client, spec }) => {
            const result = await closedLoop(client, CHEAP_CALL, concurrency, windowMs);
            if (result.failed > 0)
              context.note(spec.id, transport, `cheap-throughput: ${result.firstFailure}`);
            context.step(`cheap-throughput ${spec.label} ${transport} c=${concurrency}`);
            const latency = result.latency.summary();
            return {
              rate: result.callsPerSecond,
              p50: latency.p50Ms,
              p99: latency.p99Ms,
              client: result.clientCpuPercent,
            };
          });
          for (const [index, { spec }] of servers.entries()) {
            const m = medians(samples[index]!);
            const params = { tool: 'echo', concurrency };
            context.record(spec.id, transport, 'calls_per_s', m.rate, 'calls/s', params);
            context.record(spec.id, transport, 'call_p50', m.p50, 'ms', params);
            context.record(spec.id, transport, 'call_p99', m.p99, 'ms', params);
            context.record(spec.id, transport, 'load_generator_cpu', m.client, '% of a core', params);
          }
        }
      });
    }
  },
};
