/**
 * dispatch-overhead: what running a trivial tool on a pool thread costs over running the same tool
 * inline. One call at a time, in 50 ms blocks of inline then blocking calls alternating within the
 * same window, so both see the same machine noise; the difference of their medians is the price of
 * the thread hop. Servers without a pool show the inline baseline alone.
 *
 * The bare thread hop (servers/thread-hop-floor.ts) runs beside the servers: what its blocking calls
 * add is what two thread wake-ups cost on this machine right now, the floor under every pool.
 */
import { alternatingLoop, type CallSpec } from '../load/closed-loop.js';
import { FLOOR_SERVER, type ServerSpec } from '../servers/server-catalog.js';
import { interleaved, medians, type Scenario, withServers } from './scenario.js';

const modesOf = (spec: ServerSpec): { mode: string; call: CallSpec }[] => [
  { mode: 'inline', call: { tool: 'noop', args: {} } },
  ...(spec.blockingNoop ? [{ mode: 'blocking', call: { tool: spec.blockingNoop, args: {} } }] : []),
];

/**
 * Long enough for V8 to optimise the whole path on both sides of the thread hop (a few thousand
 * calls of each kind); with the shared, shorter warm-up the pool side of the path was still running
 * unoptimised code, and the difference measured the JIT, not the hop.
 */
const WARMUP_MS = 2_000;

export const dispatchOverhead: Scenario = {
  name: 'dispatch-overhead',
  quick: true,
  steps: (budget, servers) => (servers.length + 1) * budget.repeats,
  async run(context) {
    const { budget } = context;
    const measured = [...context.servers, FLOOR_SERVER];
    await withServers(context, measured, 'stdio', {}, budget.repeats, async (servers) => {
      for (const { client, spec } of servers) {
        await alternatingLoop(
          client,
          modesOf(spec).map((m) => m.call),
          WARMUP_MS,
        );
      }
      const samples = await interleaved(servers, budget.repeats, async ({ client, spec }) => {
        const modes = modesOf(spec);
        const results = await alternatingLoop(
          client,
          modes.map((m) => m.call),
          budget.windowMs,
        );
        context.step(`dispatch-overhead ${spec.label}`);
        const sample: Record<string, number> = {};
        for (const [index, { mode }] of modes.entries()) {
          const result = results[index]!;
          if (result.failed > 0) context.note(spec.id, 'stdio', `dispatch-overhead: ${result.firstFailure}`);
          const latency = result.latency.summary();
          sample[`${mode}.p50`] = latency.p50Ms;
          sample[`${mode}.p99`] = latency.p99Ms;
          // Each mode had half the window (or all of it, alone).
          sample[`${mode}.rate`] = result.completed / (budget.windowMs / modes.length / 1000);
        }
        if (modes.length === 2) sample.overhead = sample['blocking.p50']! - sample['inline.p50']!;
        return sample;
      });
      for (const [index, { spec }] of servers.entries()) {
        const m = medians(samples[index]!);
        for (const { mode, call } of modesOf(spec)) {
          const params = { mode, tool: call.tool, concurrency: 1 };
          context.record(spec.id, 'stdio', 'call_p50', m[`${mode}.p50`]!, 'ms', params);
          context.record(spec.id, 'stdio', 'call_p99', m[`${mode}.p99`]!, 'ms', params);
          context.record(spec.id, 'stdio', 'calls_per_s', m[`${mode}.rate`]!, 'calls/s', {
            ...params,
            note: 'during its own blocks',
          });
        }
        if (m.overhead !== undefined) {
          context.record(spec.id, 'stdio', 'blocking_overhead_p50', m.overhead, 'ms', { concurrency: 1 });
        }
      }
    });
  },
};
