/**
 * co-tenants (on demand: `npm run bench -- co-tenants`): weft lowers its pool threads' CPU priority
 * (pool.niceIncrement, default 10) so that the event loop wins the CPU over its own tools. On a
 * machine shared with other busy processes, that priority also decides how much CPU the tools get
 * against the neighbours. This runs weft with its default and with niceIncrement 0, side by side,
 * first alone and then with one busy-looping neighbour process per core, and measures CPU-tool
 * throughput and cheap-call p99 under load for each.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closedLoop } from '../load/closed-loop.js';
import { openLoop } from '../load/open-loop.js';
import { SERVERS } from '../servers/server-catalog.js';
import { type RunningServer, startServer, TransportUnavailable } from '../servers/server-process.js';
import { CHEAP_CALL, HEAVY_CALL, interleaved, medians, type Scenario, sleep } from './scenario.js';

const VARIANTS = [
  { nice: 'default', options: {} },
  { nice: '0', options: { nice: 0 } },
] as const;
const neighbourCounts = (cores: number) => [0, cores];
/** Neighbours stop themselves after this long even if the runner dies. */
const NEIGHBOUR_MAX_MS = 120_000;

function startNeighbours(count: number): ChildProcess[] {
  const code = `const end = Date.now() + ${NEIGHBOUR_MAX_MS}; while (Date.now() < end);`;
  return Array.from({ length: count }, () => spawn(process.execPath, ['-e', code], { stdio: 'ignore' }));
}

async function stopNeighbours(neighbours: ChildProcess[]): Promise<void> {
  await Promise.all(
    neighbours.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}

export const coTenants: Scenario = {
  name: 'co-tenants',
  quick: false,
  onDemand: true,
  steps: (budget, _servers, cores) => neighbourCounts(cores).length * VARIANTS.length * budget.repeats,
  async run(context) {
    const { budget, cores } = context;
    const weft = SERVERS.find((spec) => spec.id === 'weft')!;
    const servers: RunningServer[] = [];
    try {
      for (const variant of VARIANTS) servers.push(await startServer(weft, 'stdio', variant.options));
    } catch (error) {
      await Promise.all(servers.map((server) => server.stop()));
      if (!(error instanceof TransportUnavailable)) throw error;
      context.note('weft', 'stdio', `co-tenants: skipped: ${error.message}`);
      return;
    }
    try {
      for (const { client } of servers) await closedLoop(client, HEAVY_CALL, cores, budget.warmupMs);
      for (const neighbours of neighbourCounts(cores)) {
        const running = startNeighbours(neighbours);
        try {
          await sleep(300);
          const samples = await interleaved(servers, budget.repeats, async ({ client }) => {
            const throughput = await closedLoop(client, HEAVY_CALL, 2 * cores, budget.windowMs);
            const heavy = closedLoop(client, HEAVY_CALL, 8, 200 + budget.windowMs);
            await sleep(200);
            const probe = (await openLoop(client, CHEAP_CALL, 5, budget.windowMs)).summary();
            await heavy;
            context.step(`co-tenants ${neighbours} neighbours`);
            return { rate: throughput.callsPerSecond, p99: probe.p99Ms };
          });
          for (const [index, variant] of VARIANTS.entries()) {
            const m = medians(samples[index]!);
            const params = { nice_increment: variant.nice, neighbours };
            context.record('weft', 'stdio', 'cpu_calls_per_s', m.rate, 'calls/s', {
              ...params,
              concurrency: 2 * cores,
            });
            context.record('weft', 'stdio', 'cheap_p99_under_k8', m.p99, 'ms', params);
          }
        } finally {
          await stopNeighbours(running);
        }
      }
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
  },
};
