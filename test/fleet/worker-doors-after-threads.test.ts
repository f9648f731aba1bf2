/**
 * A `weft worker` takes jobs once its pool's threads are up, as a server opens its doors after
 * them (test/startup/doors-after-threads.test.ts): a job taken while they load would start late on
 * its deadline. The worker runs as a real process against its own redis-server, its threads held
 * 1.5 s before their entry loads (test/startup/slow-thread-start.cts); when it says it is serving,
 * its one thread must have loaded.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startReadyChild } from '../support/ready-child.js';
import { type RedisUnderTest, startRedis } from '../support/redis-server.js';

const CLI = fileURLToPath(new URL('../../lib/cli.js', import.meta.url));
const TOOLS_MODULE = fileURLToPath(new URL('./fleet-tools.js', import.meta.url));
const SLOW_START = fileURLToPath(new URL('../startup/slow-thread-start.cjs', import.meta.url));
const { threadLogOf } = createRequire(import.meta.url)(SLOW_START) as {
  threadLogOf: (pid: number) => string;
};

/** Lines the held threads of process `pid` wrote once loaded. */
function threadsLoaded(pid: number): number {
  try {
    return readFileSync(threadLogOf(pid), 'utf8').split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
}

describe('a fleet worker takes jobs after its threads are up', () => {
  let redis: RedisUnderTest;
  before(async () => {
    redis = await startRedis();
  });
  after(() => redis?.stop());

  it('says it serves the queue only once its pool thread has loaded', async () => {
    const args = ['-r', SLOW_START, CLI, 'worker', TOOLS_MODULE, '--redis', redis.url];
    args.push('--queue', 'doors-after-threads', '--threads', '1');
    const { child, ready } = await startReadyChild(args, {
      name: 'the fleet worker',
      env: { WEFT_TEST_THREAD_HOLD_MS: '1500' },
      timeoutMs: 20_000,
      // Read at the moment it says so: the held thread would load within 1.5 s anyway.
      ready: (output, spawned) =>
        /weft worker: serving queue/.test(output) ? threadsLoaded(spawned.pid!) : undefined,
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    rmSync(threadLogOf(child.pid!), { force: true });
    assert.equal(ready, 1, 'the worker served before its thread had loaded');
  });
});
