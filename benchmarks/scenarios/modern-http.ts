/**
 * modern-http: the stateless 2026-07-28 era over Streamable HTTP, weft against the official SDK v2
 * (`createMcpHandler`). Two measurements, both through the same raw load client as every other
 * scenario (no SDK client in the way, so the numbers are the servers'):
 * - echo throughput, closed loop at 1, 16 and 64 in flight: the per-request cost of the era, where
 *   every POST carries its own envelope and headers, and the SDK builds a server per request;
 * - echo p99 while K = 8 CPU-bound calls (`hash_chain`, 40,000 rounds) stay in flight, the echo sent
 *   open-loop every 5 ms: weft runs the CPU calls on its pool, the SDK on its event loop.
 */
import { closedLoop } from '../load/closed-loop.js';
import { openLoop } from '../load/open-loop.js';
import { SDK_V2_SERVER, type ServerSpec } from '../servers/server-catalog.js';
import { echoSweep } from './echo-sweep.js';
import { CHEAP_CALL, interleaved, medians, type Scenario, sleep, withServers } from './scenario.js';

const TRANSPORT = 'modern-http';
const CONCURRENCY = [1, 16, 64];
const K = 8;
const PROBE_INTERVAL_MS = 5;
const SETTLE_MS = 200;
const ROUNDS = 40_000;
const LOAD = { tool: 'hash_chain', args: { text: 'weft', rounds: ROUNDS } };

/** weft when the run includes it, and always the SDK v2 peer (the era's reference server). */
const competitors = (servers: readonly ServerSpec[]): ServerSpec[] => [
  ...servers.filter((spec) => spec.id === 'weft'),
  SDK_V2_SERVER,
];

export const modernHttp: Scenario = {
  name: 'modern-http',
  quick: true,
  steps: (budget, servers) => competitors(servers).length * (CONCURRENCY.length + 1) * budget.repeats,
  async run(context) {
    const { budget } = context;
    const specs = competitors(context.servers);
    const stepsPerServer = (CONCURRENCY.length + 1) * budget.repeats;
    await withServers(context, specs, TRANSPORT, {}, stepsPerServer, async (servers) => {
      for (const { client } of servers) {
        await closedLoop(client, CHEAP_CALL, 16, budget.warmupMs);
        await closedLoop(client, LOAD, 2, budget.warmupMs / 2);
      }
      await echoSweep(context, servers, TRANSPORT, {
        concurrency: CONCURRENCY,
        windowMs: budget.windowMs / 2,
        failure: 'modern-http echo',
        step: (spec, concurrency) => `modern-http ${spec.label} c=${concurrency}`,
      });
      const samples = await interleaved(servers, budget.repeats, async ({ client, spec }) => {
        const heavy = closedLoop(client, LOAD, K, SETTLE_MS + budget.windowMs);
        heavy.catch(() => {}); // a broken connection is reported once, below
        try {
          await sleep(SETTLE_MS);
          const probe = await openLoop(client, CHEAP_CALL, PROBE_INTERVAL_MS, budget.windowMs);
          const load = await heavy;
          if (load.failed > 0)
            context.note(spec.id, TRANSPORT, `modern-http hash_chain: ${load.firstFailure}`);
          const summary = probe.summary();
          return { p50: summary.p50Ms, p99: summary.p99Ms, max: summary.maxMs, heavy: load.callsPerSecond };
        } catch (error) {
          context.note(spec.id, TRANSPORT, `modern-http K=${K}: ${(error as Error).message}`);
          return undefined;
        } finally {
          context.step(`modern-http ${spec.label} K=${K}`);
        }
      });
      for (const [index, { spec }] of servers.entries()) {
        const measured = samples[index]!.filter((sample) => sample !== undefined);
        if (measured.length === 0) continue;
        const m = medians(measured);
        const params = {
          k: K,
          probe: 'echo',
          load: `hash_chain ${ROUNDS} rounds`,
          interval_ms: PROBE_INTERVAL_MS,
        };
        context.record(spec.id, TRANSPORT, 'cheap_p50', m.p50, 'ms', params);
        context.record(spec.id, TRANSPORT, 'cheap_p99', m.p99, 'ms', params);
        context.record(spec.id, TRANSPORT, 'cheap_max', m.max, 'ms', params);
        context.record(spec.id, TRANSPORT, 'cpu_calls_per_s', m.heavy, 'calls/s', params);
      }
    });
  },
};
