/**
 * rolling-restart: what a deploy costs the callers. The deploy recipe on this machine
 * (examples/deploy/local-cluster.ts: HAProxy with examples/deploy/haproxy.cfg, three replicas,
 * Redis, a `weft worker`) under the load of benchmarks/load/rolling-clients.ts (modern callers,
 * legacy SDK sessions, tasks polled across replicas, fleet calls); after a warm-up, a window of
 * calm, then each replica in turn SIGTERMed and started again. Recorded: the modern calls' p50/p99
 * before the roll and during it (first SIGTERM to the last replica back in HAProxy), and the books
 * (failed modern calls, lost tasks, the most errors a legacy client saw in a row), which must be 0,
 * 0 and at most 1. Skipped, saying why, without haproxy or redis-server. On demand only:
 * `npm run bench -- rolling-restart`.
 */
import { spawnSync } from 'node:child_process';
import { haproxyBinary } from '../../examples/deploy/local-cluster.js';
import { rollReplicas, startRollingCluster } from '../load/replica-roll.js';
import { percentileWithin, RollingLoad } from '../load/rolling-clients.js';
import type { Scenario } from './scenario.js';

const TRANSPORT = 'modern-http';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function missing(): string | undefined {
  if (!haproxyBinary()) return 'haproxy is not installed';
  if (spawnSync('redis-server', ['--version']).status !== 0) return 'redis-server is not on PATH';
  return undefined;
}

export const rollingRestart: Scenario = {
  name: 'rolling-restart',
  quick: false,
  onDemand: true,
  steps: () => 5,
  async run(context) {
    const why = missing();
    if (why) {
      context.note('weft', TRANSPORT, `rolling-restart: skipped: ${why}`);
      for (let i = 0; i < 5; i++) context.step('rolling-restart skipped');
      return;
    }
    const { budget } = context;
    const cluster = await startRollingCluster();
    try {
      const load = new RollingLoad({ url: cluster.lbUrl });
      await load.start();
      await sleep(budget.warmupMs);
      const calmFrom = performance.now();
      await sleep(budget.windowMs * 2);
      const rollFrom = performance.now();
      context.step('rolling-restart before');
      await rollReplicas(cluster, (index, exit) => {
        if (exit !== 0)
          context.note('weft', TRANSPORT, `rolling-restart: replica ${index + 1} exited ${exit}`);
        context.step(`rolling-restart replica ${index + 1}`);
      });
      const rollTo = performance.now();
      const books = await load.stop();
      const samples = books.modern.samples;
      const params = {
        replicas: cluster.replicas.length,
        roll_s: Math.round((rollTo - rollFrom) / 100) / 10,
      };
      const record = (metric: string, value: number, unit: string) =>
        context.record('weft', TRANSPORT, metric, value, unit, params);
      for (const [window, from, to] of [
        ['before_roll', calmFrom, rollFrom],
        ['during_roll', rollFrom, rollTo],
      ] as const) {
        for (const percentile of [50, 99])
          record(`modern_p${percentile}_${window}`, percentileWithin(samples, from, to, percentile), 'ms');
      }
      record('modern_calls', books.modern.ok + books.modern.failed, 'calls');
      record('failed_modern_calls', books.modern.failed + books.fleet.failed, 'calls');
      record('tasks_started', books.tasks.started, 'tasks');
      record('lost_tasks', books.tasks.lost, 'tasks');
      const worst = Math.max(...books.legacy.map((each) => each.maxErrorsInARow));
      record('legacy_max_errors_in_a_row', worst, 'errors');
      context.step('rolling-restart books');
    } finally {
      await cluster.stop();
    }
  },
};
