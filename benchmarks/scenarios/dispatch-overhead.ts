/**
 * dispatch-overhead: what running a trivial tool on a pool thread costs over running the same tool
 * inline. One call at a time, so each latency is one full trip through the server; the difference
 * of the medians is the price of the thread hop. Servers without a pool show the inline baseline.
 */
import { closedLoop } from '../load/closed-loop.js';
import { medians, type Scenario, withServer } from './scenario.js';

const modes = (blockingNoop: string | undefined) =>
  blockingNoop === undefined
    ? [{ mode: 'inline', tool: 'noop' }]
    : [
        { mode: 'inline', tool: 'noop' },
        { mode: 'blocking', tool: blockingNoop },
      ];

export const dispatchOverhead: Scenario = {
  name: 'dispatch-overhead',
  quick: true,
  steps: (budget, servers) =>
    servers.reduce((total, spec) => total + modes(spec.blockingNoop).length * budget.repeats, 0),
  async run(context) {
    const { budget } = context;
    for (const spec of context.servers) {
      const runs = modes(spec.blockingNoop);
      await withServer(context, spec, 'stdio', {}, runs.length * budget.repeats, async ({ client }) => {
        for (const { tool } of runs) await closedLoop(client, { tool, args: {} }, 1, budget.warmupMs);
        const p50ByMode = new Map<string, number>();
        for (const { mode, tool } of runs) {
          const samples = [];
          for (let repeat = 0; repeat < budget.repeats; repeat++) {
            const result = await closedLoop(client, { tool, args: {} }, 1, budget.windowMs);
            if (result.failed > 0)
              context.note(spec.id, 'stdio', `dispatch-overhead: ${result.firstFailure}`);
            const latency = result.latency.summary();
            samples.push({ p50: latency.p50Ms, p99: latency.p99Ms, rate: result.callsPerSecond });
            context.step(`dispatch-overhead ${spec.label} ${mode}`);
          }
          const m = medians(samples);
          const params = { mode, tool, concurrency: 1 };
          context.record(spec.id, 'stdio', 'call_p50', m.p50, 'ms', params);
          context.record(spec.id, 'stdio', 'call_p99', m.p99, 'ms', params);
          context.record(spec.id, 'stdio', 'calls_per_s', m.rate, 'calls/s', params);
          p50ByMode.set(mode, m.p50);
        }
        const inline = p50ByMode.get('inline');
        const blocking = p50ByMode.get('blocking');
        if (inline !== undefined && blocking !== undefined) {
          context.record(spec.id, 'stdio', 'blocking_overhead_p50', blocking - inline, 'ms', {
            concurrency: 1,
          });
        }
      });
    }
  },
};
