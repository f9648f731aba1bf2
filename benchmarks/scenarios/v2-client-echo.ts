/**
 * v2-client-echo: the responsiveness promise in the 2026-07-28 era, seen the way its users see it.
 * The official v2 client (`@modelcontextprotocol/client`, pinned to 2026-07-28) sends `echo` every
 * 5 ms over Streamable HTTP to weft while K = 8 CPU-bound calls (`hash_chain`, 40,000 rounds, from
 * the raw load client) keep the pool saturated. Reported beside the client's p50 / p99 / max: the
 * server's own time per echo request (headers parsed to response finished, read from the server
 * with `request_times`), so a tail can be placed in the server or outside it (client, wire,
 * scheduler), and the same probe with the pool idle first (k = 0), the client's own floor. The
 * stdio figure it is set beside is responsiveness's K = 8.
 */
import { performance } from 'node:perf_hooks';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { closedLoop } from '../load/closed-loop.js';
import type { LatencyHistogram, LatencySummary } from '../load/latency-histogram.js';
import { openLoopOf } from '../load/open-loop.js';
import type { ServerSpec } from '../servers/server-catalog.js';
import { medians, type Scenario, sleep, withServer } from './scenario.js';

const TRANSPORT = 'modern-http';
const K = 8;
const PROBE_INTERVAL_MS = 5;
const SETTLE_MS = 200;
/** Windows longer than the other scenarios': a p99 needs a few hundred probes to mean anything. */
const WINDOW_FACTOR = 4;
const LOAD = { tool: 'hash_chain', args: { text: 'weft', rounds: 40_000 } };
const ECHO = { name: 'echo', arguments: { text: 'hello' } };

/** The weft bench server with `request_times` registered. */
function withRequestTimes(spec: ServerSpec): ServerSpec {
  return {
    ...spec,
    command: (transport, port) => {
      const { script, args } = spec.command(transport, port);
      return { script, args: [...args, '--request-times'] };
    },
  };
}

/** Sends `echo` through `client` every PROBE_INTERVAL_MS for `windowMs`, whatever the answers do. */
function probe(client: Client, windowMs: number): Promise<LatencyHistogram> {
  return openLoopOf(PROBE_INTERVAL_MS, windowMs, async () => {
    const sentAt = performance.now();
    const result = await client.callTool(ECHO);
    if (result.isError) throw new Error(`echo failed: ${JSON.stringify(result.content)}`);
    return performance.now() - sentAt;
  });
}

async function serverTimes(client: Client): Promise<LatencySummary> {
  const result = await client.callTool({ name: 'request_times', arguments: {} });
  const [block] = result.content as { type: string; text: string }[];
  return JSON.parse(block!.text) as LatencySummary;
}

export const v2ClientEcho: Scenario = {
  name: 'v2-client-echo',
  quick: true,
  steps: (budget, servers) => (servers.some((spec) => spec.id === 'weft') ? budget.repeats : 0),
  async run(context) {
    const spec = context.servers.find((server) => server.id === 'weft');
    if (!spec) return;
    const { budget } = context;
    const windowMs = budget.windowMs * WINDOW_FACTOR;
    await withServer(context, withRequestTimes(spec), TRANSPORT, {}, budget.repeats, async (server) => {
      const client = new Client(
        { name: 'weft-bench-v2-client', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.port}/mcp`)));
      try {
        for (let i = 0; i < 200; i++) await client.callTool(ECHO);
        // The client's own floor: the same probe with the pool idle. The official v2 client spends
        // 2-3 ms of CPU per call (fetch, its schemas), so at one call every 5 ms its own event loop
        // is half busy: what it adds shows here, before any load.
        await serverTimes(client);
        const floor = (await probe(client, windowMs)).summary();
        const floorOwn = await serverTimes(client);
        const floorParams = { k: 0, interval_ms: PROBE_INTERVAL_MS, window_ms: windowMs, client: 'sdk-v2' };
        context.record('weft', TRANSPORT, 'v2_client_echo_p50', floor.p50Ms, 'ms', floorParams);
        context.record('weft', TRANSPORT, 'v2_client_echo_p99', floor.p99Ms, 'ms', floorParams);
        context.record('weft', TRANSPORT, 'server_echo_p99', floorOwn.p99Ms, 'ms', floorParams);
        await closedLoop(server.client, LOAD, 2, budget.warmupMs / 2);
        const samples = [];
        for (let repeat = 0; repeat < budget.repeats; repeat++) {
          const heavy = closedLoop(server.client, LOAD, K, SETTLE_MS + windowMs);
          heavy.catch(() => {}); // a broken connection is reported once, below
          await sleep(SETTLE_MS);
          await serverTimes(client); // what the settling left is not this window's
          const seen = (await probe(client, windowMs)).summary();
          const own = await serverTimes(client);
          const load = await heavy;
          if (load.failed > 0)
            context.note('weft', TRANSPORT, `v2-client-echo hash_chain: ${load.firstFailure}`);
          samples.push({
            p50: seen.p50Ms,
            p99: seen.p99Ms,
            max: seen.maxMs,
            server_p50: own.p50Ms,
            server_p99: own.p99Ms,
            server_max: own.maxMs,
            probes: seen.count,
          });
          context.step(`v2-client-echo window ${repeat + 1}`);
        }
        const median = medians(samples);
        const params = { k: K, interval_ms: PROBE_INTERVAL_MS, window_ms: windowMs, client: 'sdk-v2' };
        context.record('weft', TRANSPORT, 'v2_client_echo_p50', median.p50, 'ms', params);
        context.record('weft', TRANSPORT, 'v2_client_echo_p99', median.p99, 'ms', params);
        context.record('weft', TRANSPORT, 'v2_client_echo_max', median.max, 'ms', params);
        context.record('weft', TRANSPORT, 'server_echo_p50', median.server_p50, 'ms', params);
        context.record('weft', TRANSPORT, 'server_echo_p99', median.server_p99, 'ms', params);
        context.note(
          'weft',
          TRANSPORT,
          `v2-client-echo p99 per window (client / server's own): ${samples
            .map((s) => `${s.p99.toFixed(2)} / ${s.server_p99.toFixed(2)} ms`)
            .join(', ')}`,
        );
      } finally {
        await client.close();
      }
    });
  },
};
