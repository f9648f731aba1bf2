/**
 * memory: resident memory of each server idle, under mixed load (CPU calls filling every core plus
 * cheap calls), and, for servers with a pool, per pool thread: the idle difference between a pool
 * of 4 threads and a pool of 1, divided by 3.
 */
import { closedLoop } from '../load/closed-loop.js';
import { rssMiB, threadCount } from '../load/process-probe.js';
import { CHEAP_CALL, HEAVY_CALL, type Scenario, sleep, withServer } from './scenario.js';

const SETTLE_MS = 1_000;
const SAMPLE_EVERY_MS = 50;

async function settledRss(pid: number): Promise<number | undefined> {
  await sleep(SETTLE_MS);
  return rssMiB(pid);
}

export const memory: Scenario = {
  name: 'memory',
  quick: false,
  steps: (_budget, servers) => servers.length + servers.filter((spec) => spec.hasPool).length,
  async run(context) {
    const { budget, cores } = context;
    for (const spec of context.servers) {
      await withServer(context, spec, 'stdio', {}, 1, async ({ client, pid }) => {
        const idle = await settledRss(pid);
        if (idle === undefined) {
          context.note(spec.id, 'stdio', 'memory: resident memory needs /proc (Linux)');
          context.step(`memory ${spec.label}`);
          return;
        }
        context.record(spec.id, 'stdio', 'rss_idle', idle, 'MiB', { os_threads: threadCount(pid) ?? 0 });
        let peak = idle;
        const sampler = setInterval(() => {
          peak = Math.max(peak, rssMiB(pid) ?? 0);
        }, SAMPLE_EVERY_MS);
        const durationMs = 2 * budget.windowMs;
        await Promise.all([
          closedLoop(client, HEAVY_CALL, 2 * cores, durationMs),
          closedLoop(client, CHEAP_CALL, 16, durationMs),
        ]);
        clearInterval(sampler);
        context.record(spec.id, 'stdio', 'rss_under_load', peak, 'MiB', {
          load: `hash_chain x${2 * cores} + echo x16`,
        });
        context.step(`memory ${spec.label}`);
      });
    }
    for (const spec of context.servers.filter((server) => server.hasPool)) {
      const idleWith: number[] = [];
      for (const threads of [1, 4]) {
        await withServer(context, spec, 'stdio', { threads }, 0, async ({ pid }) => {
          const rss = await settledRss(pid);
          if (rss !== undefined) idleWith.push(rss);
        });
      }
      if (idleWith.length === 2) {
        context.record(spec.id, 'stdio', 'rss_per_pool_thread', (idleWith[1]! - idleWith[0]!) / 3, 'MiB', {
          method: '(rss with 4 threads - rss with 1) / 3',
        });
      }
      context.step(`memory ${spec.label} per thread`);
    }
  },
};
