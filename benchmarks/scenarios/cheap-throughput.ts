/**
 * cheap-throughput: inline `echo` calls per second at concurrency 1, 16 and 64 over each transport.
 * This is the router's and the transport's own cost, with no tool work to hide it. A server without
 * a transport is skipped with a note (the official SDK and FastMCP have no WebSocket server).
 */
import { closedLoop } from '../load/closed-loop.js';
import type { TransportName } from '../load/wire.js';
import { echoSweep } from './echo-sweep.js';
import { CHEAP_CALL, type Scenario, withServers } from './scenario.js';

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
        await echoSweep(context, servers, transport, {
          concurrency: CONCURRENCY,
          windowMs,
          failure: 'cheap-throughput',
          step: (spec, concurrency) => `cheap-throughput ${spec.label} ${transport} c=${concurrency}`,
          loadGeneratorCpu: true,
        });
      });
    }
  },
};
