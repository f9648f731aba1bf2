/**
 * dispatch-overhead: what running a trivial tool on a pool thread costs over running the same tool
 * inline. One call at a time, so each latency is one full trip through the server; the difference
 * of the medians is the price of the thread hop. Servers without a pool show the inline baseline.
 */
import { closedLoop } from '../load/closed-loop.js';
import type { ServerSpec } from '../servers/server-catalog.js';
import type { RunningServer } from '../servers/server-process.js';
import { interleaved, medians, type Scenario, withServers } from './scenario.js';

const MODES = ['inline', 'blocking'] as const;
const toolFor = (server: RunningServer, mode: (typeof MODES)[number]) =>
  mode === 'inline' ? 'noop' : server.spec.blockingNoop;

const stepsFor = (spec: ServerSpec, repeats: number) => (spec.blockingNoop ? 2 : 1) * repeats;

export const dispatchOverhead: Scenario = {
  name: 'dispatch-overhead',
  quick: true,
  steps: (budget, servers) => servers.reduce((total, spec) => total + stepsFor(spec, budget.repeats), 0),
  async run(context) {
    const { budget } = context;
    const windowMs = budget.windowMs / 2; // thousands of calls per window: half is plenty
    const steps = (spec: ServerSpec) => stepsFor(spec, budget.repeats);
    await withServers(context, context.servers, 'stdio', {}, steps, async (all) => {
      const p50s = new Map<string, number>();
      for (const mode of MODES) {
        const servers = all.filter((server) => toolFor(server, mode) !== undefined);
        for (const server of servers) {
          await closedLoop(server.client, { tool: toolFor(server, mode)!, args: {} }, 1, budget.warmupMs);
        }
        const samples = await interleaved(servers, budget.repeats, async (server) => {
          const tool = toolFor(server, mode)!;
          const result = await closedLoop(server.client, { tool, args: {} }, 1, windowMs);
          if (result.failed > 0)
            context.note(server.spec.id, 'stdio', `dispatch-overhead: ${result.firstFailure}`);
          context.step(`dispatch-overhead ${server.spec.label} ${mode}`);
          const latency = result.latency.summary();
          return { p50: latency.p50Ms, p99: latency.p99Ms, rate: result.callsPerSecond };
        });
        for (const [index, server] of servers.entries()) {
          const m = medians(samples[index]!);
          const params = { mode, tool: toolFor(server, mode)!, concurrency: 1 };
          context.record(server.spec.id, 'stdio', 'call_p50', m.p50, 'ms', params);
          context.record(server.spec.id, 'stdio', 'call_p99', m.p99, 'ms', params);
          context.record(server.spec.id, 'stdio', 'calls_per_s', m.rate, 'calls/s', params);
          p50s.set(`${server.spec.id}/${mode}`, m.p50);
        }
      }
      for (const { spec } of all) {
        const inline = p50s.get(`${spec.id}/inline`);
        const blocking = p50s.get(`${spec.id}/blocking`);
        if (inline !== undefined && blocking !== undefined) {
          context.record(spec.id, 'stdio', 'blocking_overhead_p50', blocking - inline, 'ms', {
            concurrency: 1,
          });
        }
      }
    });
  },
};
