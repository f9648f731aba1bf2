/**
 * noisy-neighbour: one pool, two callers. Caller A keeps 32 `spin {ms: 50}` in flight; caller B
 * makes the same call one at a time. B's latency is measured alone, then beside A, on weft (fair
 * admission, the default), weft with `fairness: false` (first come, first served) and SDK +
 * Piscina (Piscina's own queue, first come, first served), plus the total throughput beside A.
 *
 * Over legacy Streamable HTTP: A and B are two sessions from two addresses (A on 127.0.0.1, B on
 * 127.0.0.2): weft's caller is the principal, else the peer's address (caller-identity.ts), so two
 * sessions of one host are one caller and share its part. With first come, first served, B's call
 * waits behind A's 32: about 32 / threads x 50 ms. With fair admission it waits for the next slot.
 * Midway, weft's `pool_stats` tool reads server.stats.callers: what A and B hold and wait for.
 *
 * modern-neighbours is the same over 2026-07-28 HTTP, where there are no sessions: A is an
 * anonymous client on 127.0.0.1, B one on 127.0.0.2, and weft tells them apart by address alone
 * (transports/caller-identity.ts); each request used to be a caller of its own.
 */
import { closedLoop } from '../load/closed-loop.js';
import { HttpWire } from '../load/http-wire.js';
import { LoadClient } from '../load/load-client.js';
import { ModernHttpWire } from '../load/modern-http-wire.js';
import type { TransportName } from '../load/wire.js';
import { SERVERS, type ServerSpec, WEFT_FIFO_SERVER } from '../servers/server-catalog.js';
import type { RunningServer } from '../servers/server-process.js';
import { interleaved, medians, type Scenario, sleep, withServers } from './scenario.js';

const SPIN = { tool: 'spin', args: { ms: 50 } };
const A_IN_FLIGHT = 32;
/** Time A's load runs before B is measured beside it: A's 32 are queued by then. */
const SETTLE_MS = 300;

/** weft, weft first come first served, and (when `withSdk`: it speaks the legacy era only) SDK + Piscina. */
const specsOf = (servers: readonly ServerSpec[], withSdk = true): ServerSpec[] => {
  const chosen = servers.filter((spec) => spec.id === 'weft' || (withSdk && spec.id === 'sdk-piscina'));
  const weft = chosen.findIndex((spec) => spec.id === 'weft');
  if (weft >= 0) chosen.splice(weft + 1, 0, WEFT_FIFO_SERVER);
  return chosen;
};
/** B needs enough calls for a p99 even where it waits behind A's queue. */
const windows = (quick: boolean) =>
  quick ? { alone: 1_500, beside: 3_000 } : { alone: 3_000, beside: 6_000 };

/** A and B as one server's scenario sees them; `close` ends both and whatever stands between. */
export interface Neighbours {
  a: LoadClient;
  b: LoadClient;
  close(): Promise<void>;
}

/**
 * One pool, two callers, over `transport`; `callers` opens A and B (by default A is the server's
 * own client). `specsFor` picks the servers among those the run asked for.
 */
export function neighbours(
  name: string,
  transport: TransportName,
  callers: (server: RunningServer) => Promise<Neighbours>,
  specsFor: (servers: readonly ServerSpec[]) => ServerSpec[] = (servers) =>
    specsOf(servers, transport === 'http'),
): Scenario {
  return {
    name,
    quick: true,
    steps: (budget, servers) => specsFor(servers).length * budget.repeats,
    async run(context) {
      const { budget } = context;
      const specs = specsFor(context.servers.length > 0 ? context.servers : SERVERS);
      const { alone, beside } = windows(budget.quick);
      await withServers(context, specs, transport, {}, budget.repeats, async (servers) => {
        const opened = new Map<RunningServer, Neighbours>();
        for (const server of servers) {
          const pair = await callers(server);
          opened.set(server, pair);
          await closedLoop(pair.a, SPIN, 4, budget.warmupMs);
        }
        const samples = await interleaved(servers, budget.repeats, async (server) => {
          const { a, b } = opened.get(server)!;
          const bAlone = (await closedLoop(b, SPIN, 1, alone)).latency.summary();
          const load = closedLoop(a, SPIN, A_IN_FLIGHT, SETTLE_MS + beside);
          await sleep(SETTLE_MS);
          const stats = server.spec.id === 'sdk-piscina' ? undefined : poolStats(b);
          const near = await closedLoop(b, SPIN, 1, beside);
          const loadA = await load;
          const held = await stats;
          context.step(`${name} ${server.spec.label}`);
          // Total throughput while both call: A's calls per second plus B's.
          return {
            aloneP50: bAlone.p50Ms,
            aloneP99: bAlone.p99Ms,
            besideP50: near.latency.summary().p50Ms,
            besideP99: near.latency.summary().p99Ms,
            total: loadA.callsPerSecond + near.callsPerSecond,
            bCalls: near.completed,
            heldByA: held?.a.running ?? Number.NaN,
            waitingA: held?.a.waiting ?? Number.NaN,
            heldByB: held?.b.running ?? Number.NaN,
          };
        });
        for (const [index, { spec }] of servers.entries()) {
          const m = medians(samples[index]!);
          const params = { load: `A: ${A_IN_FLIGHT} spin 50 ms in flight; B: 1 at a time` };
          const alonePhase = { ...params, phase: 'B alone' };
          const besidePhase = { ...params, phase: 'B beside A' };
          context.record(spec.id, transport, 'b_p50', m.aloneP50, 'ms', alonePhase);
          context.record(spec.id, transport, 'b_p99', m.aloneP99, 'ms', alonePhase);
          context.record(spec.id, transport, 'b_p50', m.besideP50, 'ms', besidePhase);
          context.record(spec.id, transport, 'b_p99', m.besideP99, 'ms', besidePhase);
          context.record(
            spec.id,
            transport,
            'b_p99_over_alone_p50',
            m.besideP99 / m.aloneP50,
            'x',
            besidePhase,
          );
          context.record(spec.id, transport, 'b_calls', m.bCalls, 'calls', besidePhase);
          context.record(spec.id, transport, 'total_calls_per_s', m.total, 'calls/s', besidePhase);
          if (!Number.isNaN(m.heldByA)) {
            context.record(spec.id, transport, 'a_slots_held', m.heldByA, 'slots', besidePhase);
            context.record(spec.id, transport, 'a_calls_waiting', m.waitingA, 'calls', besidePhase);
            context.record(spec.id, transport, 'b_slots_held', m.heldByB, 'slots', besidePhase);
          }
        }
        for (const pair of opened.values()) await pair.close();
      });
    },
  };
}

/** A is the server's own client (the runner closes it); B is opened here and closed with the pair. */
const besideServer = (server: RunningServer, b: LoadClient): Neighbours => ({
  a: server.client,
  b,
  close: () => b.close(),
});

export const noisyNeighbour = neighbours('noisy-neighbour', 'http', async (server) => {
  const b = new LoadClient(new HttpWire(server.port, {}, { localAddress: '127.0.0.2' }));
  await b.initialize();
  return besideServer(server, b);
});

export const modernNeighbours = neighbours('modern-neighbours', 'modern-http', async (server) =>
  besideServer(server, new LoadClient(new ModernHttpWire(server.port, {}, { localAddress: '127.0.0.2' }))),
);

interface Holding {
  key: string;
  running: number;
  waiting: number;
}

/**
 * weft's server.stats.callers midway through B's window (via the pool_stats tool): the caller with
 * the most calls in flight is A, the other one B.
 */
async function poolStats(client: LoadClient): Promise<{ a: Holding; b: Holding } | undefined> {
  await sleep(500);
  const reply = await client.call('pool_stats', {}).reply;
  const text = (reply.result?.content as { text?: string }[] | undefined)?.[0]?.text;
  if (text === undefined) return undefined;
  const holdings = (JSON.parse(text) as Holding[]).sort(
    (x, y) => y.running + y.waiting - (x.running + x.waiting),
  );
  const none = { key: '', running: 0, waiting: 0 };
  return { a: holdings[0] ?? none, b: holdings[1] ?? none };
}
