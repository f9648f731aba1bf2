/**
 * Stopping a router or a `weft worker` whose fleet Redis has gone away ends the process. BullMQ's
 * close waits for an answer that never comes and the connections went on retrying, so a router
 * closed during an outage never exited (close() resolved, the process lived on), and neither did
 * a worker told to stop with SIGTERM. Both are real processes stopped with SIGTERM (the router
 * fixture then calls close() and nothing else); Redis is a real redis-server, killed for real.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startReadyChild } from '../support/ready-child.js';
import { redisMissing, startRedis } from '../support/redis-server.js';

const ROUTER = fileURLToPath(new URL('closing-router.js', import.meta.url));
const CLI = fileURLToPath(new URL('../../lib/cli.js', import.meta.url));
const TOOLS = fileURLToPath(new URL('fleet-tools.js', import.meta.url));
/** BullMQ's event reader keeps one timer (its block time plus a second) after its connection is cut. */
const EXITS_WITHIN_MS = 20_000;

interface Stopped {
  name: string;
  /** What it runs, given the Redis URL; and what it prints once it serves. */
  args: (redisUrl: string) => string[];
  env?: (redisUrl: string) => Record<string, string>;
  serving: string;
  /** Printed once it closed (a check that close() resolved), when it says so. */
  closed?: RegExp;
}

const ROLES: readonly Stopped[] = [
  {
    name: 'the router',
    args: () => [ROUTER],
    env: (redisUrl) => ({ REDIS_URL: redisUrl }),
    serving: 'listening',
    closed: /closed/,
  },
  {
    name: 'the worker',
    args: (redisUrl) => [
      CLI,
      'worker',
      TOOLS,
      '--redis',
      redisUrl,
      '--queue',
      'weft-close-test',
      '--shutdown-grace-ms',
      '1000',
    ],
    serving: 'serving queue',
  },
];

describe('stopping a fleet router or worker', { skip: redisMissing() }, () => {
  for (const role of ROLES) {
    for (const redisState of ['up', 'down'] as const) {
      it(`ends ${role.name} stopped by SIGTERM with the fleet's Redis ${redisState}`, async () => {
        const redis = await startRedis();
        const { child, output } = await startReadyChild(role.args(redis.url), {
          name: role.name,
          env: role.env?.(redis.url),
          ready: (printed) => printed.includes(role.serving) || undefined,
          timeoutMs: 15_000,
        });
        const exited = once(child, 'exit').then(() => Date.now());
        try {
          // Let it settle into its reads (BullMQ's readers block on Redis): the hang came from a
          // close that met those reads with Redis gone.
          await new Promise((resolve) => setTimeout(resolve, 2_000));
          if (redisState === 'down') await redis.stop();
          const stopping = Date.now();
          child.kill('SIGTERM');
          const outcome = await Promise.race([
            exited,
            new Promise<'alive'>((resolve) => setTimeout(() => resolve('alive'), EXITS_WITHIN_MS).unref()),
          ]);
          assert.notEqual(
            outcome,
            'alive',
            `still running ${EXITS_WITHIN_MS} ms after SIGTERM:\n${output()}`,
          );
          if (role.closed) assert.match(output(), role.closed, 'close() resolved');
          assert.equal(child.exitCode, 0, output());
          // A diagnostic, not a bound: how long the process took to end.
          process.stderr.write(`# ${role.name} ended ${Number(outcome) - stopping} ms after SIGTERM\n`);
        } finally {
          child.kill('SIGKILL');
          await redis.stop();
        }
      });
    }
  }
});
