/**
 * Closing a router whose fleet Redis has gone away ends the process: close() resolves, and no
 * connection is left reconnecting for good (BullMQ's close waits for an answer that never comes,
 * and the connections went on retrying, so a server closed during an outage never exited). The
 * same for a `weft worker` told to stop with SIGTERM: it never exited either.
 * Routers and workers are real processes; Redis is a real redis-server, killed for real.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { redisMissing, startRedis } from '../support/redis-server.js';

const ROUTER = fileURLToPath(new URL('closing-router.js', import.meta.url));
const CLI = fileURLToPath(new URL('../../lib/cli.js', import.meta.url));
const TOOLS = fileURLToPath(new URL('fleet-tools.js', import.meta.url));
/** BullMQ's event reader keeps one timer (its block time plus a second) after its connection is cut. */
const EXITS_WITHIN_MS = 20_000;

describe('closing a fleet router or worker', { skip: redisMissing() }, () => {
  for (const redisState of ['up', 'down'] as const) {
    it(`ends the process after close() with the fleet's Redis ${redisState}`, async () => {
      const redis = await startRedis();
      const router = spawn(process.execPath, [ROUTER], {
        env: { ...process.env, REDIS_URL: redis.url },
        stdio: ['pipe', 'ignore', 'pipe'],
      });
      let output = '';
      router.stderr.on('data', (chunk) => {
        output += chunk;
      });
      const exited = new Promise<number>((resolve) => router.once('exit', () => resolve(Date.now())));
      try {
        const deadline = Date.now() + 15_000;
        while (!output.includes('listening')) {
          assert.ok(
            Date.now() < deadline && router.exitCode === null,
            `the router did not start:\n${output}`,
          );
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        // Let the router settle into its reads (BullMQ's event reader blocks on Redis): the hang
        // came from a close that met those reads with Redis gone.
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        if (redisState === 'down') await redis.stop();
        const closing = Date.now();
        router.stdin.end();
        const outcome = await Promise.race([
          exited,
          new Promise<'alive'>((resolve) => setTimeout(() => resolve('alive'), EXITS_WITHIN_MS).unref()),
        ]);
        assert.notEqual(outcome, 'alive', `still running ${EXITS_WITHIN_MS} ms after close:\n${output}`);
        assert.match(output, /closed/, 'close() resolved');
        assert.equal(router.exitCode, 0, output);
        if (typeof outcome === 'number') {
          // A diagnostic, not a bound: how long the process took to end.
          process.stderr.write(`# ended ${outcome - closing} ms after close (Redis ${redisState})\n`);
        }
      } finally {
        router.kill('SIGKILL');
        await redis.stop();
      }
    });
  }

  for (const redisState of ['up', 'down'] as const) {
    it(`ends a weft worker stopped by SIGTERM with the fleet's Redis ${redisState}`, async () => {
      const redis = await startRedis();
      const worker = spawn(
        process.execPath,
        [
          CLI,
          'worker',
          TOOLS,
          '--redis',
          redis.url,
          '--queue',
          'weft-close-test',
          '--shutdown-grace-ms',
          '1000',
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let output = '';
      worker.stderr.on('data', (chunk) => {
        output += chunk;
      });
      const exited = new Promise<number>((resolve) => worker.once('exit', () => resolve(Date.now())));
      try {
        const deadline = Date.now() + 15_000;
        while (!output.includes('serving queue')) {
          assert.ok(
            Date.now() < deadline && worker.exitCode === null,
            `the worker did not start:\n${output}`,
          );
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        if (redisState === 'down') await redis.stop();
        worker.kill('SIGTERM');
        const outcome = await Promise.race([
          exited,
          new Promise<'alive'>((resolve) => setTimeout(() => resolve('alive'), EXITS_WITHIN_MS).unref()),
        ]);
        assert.notEqual(outcome, 'alive', `still running ${EXITS_WITHIN_MS} ms after SIGTERM:\n${output}`);
        assert.equal(worker.exitCode, 0, output);
      } finally {
        worker.kill('SIGKILL');
        await redis.stop();
      }
    });
  }
});
