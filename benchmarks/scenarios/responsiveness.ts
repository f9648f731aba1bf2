/**
 * responsiveness: how long a cheap call (`echo`) takes while K CPU-bound calls (`hash_chain`,
 * 40,000 rounds) are in flight. The CPU calls run closed-loop, so K stay in flight throughout; the
 * cheap call is sent open-loop every 5 ms, so a stalled event loop shows in full. A server that
 * runs CPU work on its event loop answers the cheap call only after the CPU calls queued ahead.
 *
 * stdio runs every level; Streamable HTTP and WebSocket run K = 8 only, so the report shows what the
 * transport itself adds to the cheap call's tail under the same load (servers without the
 * transport are skipped with a note).
 */
import { closedLoop } from '../load/closed-loop.js';
import { openLoop } from '../load/open-loop.js';
import type { TransportName } from '../load/wire.js';
import { CHEAP_CALL, interleaved, medians, type Scenario, sleep, withServers } from './scenario.js';

const PROBE_INTERVAL_MS = 5;
const SETTLE_MS = 200;
const ROUNDS = 40_000;
const LOAD = { tool: 'hash_chain', args: { text: 'weft', rounds: ROUNDS } };

/** K = 0 (full run only) is the machine's own floor: the same probe with nothing else running. */
const levels = (quick: boolean, transport: TransportName) =>
  transport !== 'stdio' ? [8] : quick ? [8] : [0, 2, 4, 8, 16];
const TRANSPORTS: readonly TransportName[] = ['stdio', 'http', 'ws'];

export const responsiveness: Scenario = {
  name: 'responsiveness',
  quick: true,
  steps: (budget, servers) =>
    servers.length *
    TRANSPORTS.reduce((sum, transport) => sum + levels(budget.quick, transport).length, 0) *
    budget.repeats,
  async run(context) {
    for (const transport of TRANSPORTS) await measureOver(context, transport);
  },
};

async function measureOver(context: Parameters<Scenario['run']>[0], transport: TransportName): Promise<void> {
  const { budget } = context;
  const stepsPerServer = levels(budget.quick, transport).length * budget.repeats;
  await withServers(context, context.servers, transport, {}, stepsPerServer, async (servers) => {
    for (const { client } of servers) {
      await closedLoop(client, LOAD, 2, budget.warmupMs);
      await closedLoop(client, CHEAP_CALL, 4, budget.warmupMs);
    }
    for (const k of levels(budget.quick, transport)) {
      const samples = await interleaved(servers, budget.repeats, async ({ client, spec }) => {
        const heavy = closedLoop(client, LOAD, k, SETTLE_MS + budget.windowMs);
        await sleep(SETTLE_MS);
        const probe = (await openLoop(client, CHEAP_CALL, PROBE_INTERVAL_MS, budget.windowMs)).summary();
        const load = await heavy;
        context.step(`responsiveness ${spec.label} ${transport} K=${k}`);
        return { p50: probe.p50Ms, p99: probe.p99Ms, max: probe.maxMs, heavy: load.callsPerSecond };
      });
      for (const [index, { spec }] of servers.entries()) {
        const m = medians(samples[index]!);
        const params = {
          k,
          probe: 'echo',
          load: `hash_chain ${ROUNDS} rounds`,
          interval_ms: PROBE_INTERVAL_MS,
        };
        context.record(spec.id, transport, 'cheap_p50', m.p50, 'ms', params);
        context.record(spec.id, transport, 'cheap_p99', m.p99, 'ms', params);
        context.record(spec.id, transport, 'cheap_max', m.max, 'ms', params);
        if (k > 0) context.record(spec.id, transport, 'cpu_calls_per_s', m.heavy, 'calls/s', params);
      }
    }
  });
}
