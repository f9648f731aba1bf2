/**
 * blocking-throughput: trivial blocking calls (`noop_blocking`, a noop on the pool) kept in flight
 * over raw stdio JSON-RPC, at 1, 8 and 64 in flight, for every server with a pool (weft and the
 * SDK + Piscina peer). dispatch-overhead sees one call at a time; this is what a pool path costs
 * when calls pile up, where per-call allocations, timers and thread wake-ups add up.
 *
 * Beside them runs a bare Piscina pool of the same size with no MCP around it
 * (servers/bare-piscina-floor.ts): the rate at which this machine, in this run, hands trivial tasks
 * to Piscina at all. No server can beat it; the gap between it and a server is the server's cost.
 * Windows are interleaved (every server's first window, the floor's, then every second...), so the
 * shared machine's noise falls on all of them alike.
 */
import { type BarePiscina, startBarePiscina } from '../load/bare-piscina-driver.js';
import { closedLoop } from '../load/closed-loop.js';
import type { RunningServer } from '../servers/server-process.js';
import { medians, type Scenario, withServers } from './scenario.js';

export const BLOCKING_CONCURRENCY = [1, 8, 64];

export const blockingThroughput: Scenario = {
  name: 'blocking-throughput',
  quick: true,
  steps: (budget, servers) =>
    (servers.filter((spec) => spec.blockingNoop).length + 1) * BLOCKING_CONCURRENCY.length * budget.repeats,
  async run(context) {
    const { budget } = context;
    const pooled = context.servers.filter((spec) => spec.blockingNoop);
    const stepsPerServer = BLOCKING_CONCURRENCY.length * budget.repeats;
    await withServers(context, pooled, 'stdio', {}, stepsPerServer, async (servers) => {
      const floor = await startBarePiscina();
      try {
        await measureAll(context, servers, floor);
      } finally {
        await floor.stop();
      }
    });
  },
};

async function measureAll(
  context: Parameters<Scenario['run']>[0],
  servers: readonly RunningServer[],
  floor: BarePiscina,
): Promise<void> {
  const { budget } = context;
  const callOf = (server: RunningServer) => ({ tool: server.spec.blockingNoop!, args: {} });
  // Every path optimised (and every pool thread started) before anything is counted.
  for (const server of servers) await closedLoop(server.client, callOf(server), 16, budget.warmupMs * 2);
  await floor.measure(16, budget.warmupMs * 2);
  for (const concurrency of BLOCKING_CONCURRENCY) {
    const samples: { rate: number; p50: number; p99: number; client: number }[][] = servers.map(() => []);
    const floorRates: { rate: number }[] = [];
    for (let repeat = 0; repeat < budget.repeats; repeat++) {
      for (const [index, server] of servers.entries()) {
        const result = await closedLoop(server.client, callOf(server), concurrency, budget.windowMs);
        if (result.failed > 0)
          context.note(server.spec.id, 'stdio', `blocking-throughput: ${result.firstFailure}`);
        context.step(`blocking-throughput ${server.spec.label} c=${concurrency}`);
        const latency = result.latency.summary();
        samples[index]!.push({
          rate: result.callsPerSecond,
          p50: latency.p50Ms,
          p99: latency.p99Ms,
          client: result.clientCpuPercent,
        });
      }
      floorRates.push({ rate: await floor.measure(concurrency, budget.windowMs) });
      context.step(`blocking-throughput bare Piscina c=${concurrency}`);
    }
    const params = { tool: 'noop_blocking', concurrency };
    for (const [index, server] of servers.entries()) {
      const m = medians(samples[index]!);
      const id = server.spec.id;
      context.record(id, 'stdio', 'calls_per_s', m.rate, 'calls/s', params);
      context.record(id, 'stdio', 'call_p50', m.p50, 'ms', params);
      context.record(id, 'stdio', 'call_p99', m.p99, 'ms', params);
      context.record(id, 'stdio', 'load_generator_cpu', m.client, '% of a core', params);
    }
    context.record('bare-piscina', 'stdio', 'calls_per_s', medians(floorRates).rate, 'calls/s', {
      ...params,
      note: 'noop tasks in process, no MCP',
    });
  }
}
