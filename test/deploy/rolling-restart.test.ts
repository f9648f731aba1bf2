/**
 * A rolling restart under load, through a real HAProxy running examples/deploy/haproxy.cfg in front
 * of three replicas of examples/deploy/server.ts sharing one redis-server (tasks, the fleet queue,
 * one requestStateKey) and a `weft worker`: while modern callers, legacy SDK 1.x sessions, tasks
 * polled across replicas and fleet calls keep going, each replica in turn gets SIGTERM, exits 0 and
 * is started again. Then one replica is SIGKILLed (a crash), and what the clients saw is printed
 * as diagnostics (docs/failure-semantics.md, "A replica killed behind the balancer").
 *
 * Skipped, saying why, without haproxy or redis-server, unless WEFT_REQUIRE_HAPROXY=1 /
 * WEFT_REQUIRE_REDIS=1 (CI), where a missing one fails.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { rollReplicas, startRollingCluster } from '../../benchmarks/load/replica-roll.js';
import { RollingLoad } from '../../benchmarks/load/rolling-clients.js';
import type { LocalCluster } from '../../examples/deploy/local-cluster.js';
import { haproxyMissing } from '../support/haproxy-missing.js';
import { redisMissing } from '../support/redis-server.js';

const missing = haproxyMissing() ?? redisMissing();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('rolling restart behind HAProxy', { skip: missing, timeout: 180_000 }, () => {
  let cluster: LocalCluster;
  before(async () => {
    cluster = await startRollingCluster();
  });
  after(async () => {
    await cluster?.stop();
  });

  test('SIGTERM each replica in turn: 0 failed modern calls, 0 lost tasks, legacy clients back after at most one error', async (t) => {
    const load = new RollingLoad({ url: cluster.lbUrl });
    await load.start();
    await sleep(1_500);
    const before = { modern: load.books.modern.ok, legacy: load.books.legacy.map((books) => books.ok) };
    assert.ok(before.modern > 0, 'modern calls are answered before the roll');
    const exits = await rollReplicas(cluster);
    await sleep(1_000);
    const rolledAt = Date.now();
    const books = await load.stop();
    t.diagnostic(
      `modern ${books.modern.ok} ok / ${books.modern.failed} failed; tasks ${books.tasks.completed}/${books.tasks.started} completed; ` +
        `fleet ${books.fleet.ok} ok / ${books.fleet.failed} failed; legacy ${books.legacy
          .map(
            (each) =>
              `${each.ok} ok, ${each.errors} errors (max ${each.maxErrorsInARow} in a row), ${each.sessions} sessions`,
          )
          .join('; ')}`,
    );
    assert.deepEqual(exits, [0, 0, 0], 'every replica exits 0 on SIGTERM');
    assert.equal(
      books.modern.failed,
      0,
      `failed modern calls: ${books.modern.failures.slice(0, 5).join(' | ')}`,
    );
    assert.equal(
      books.fleet.failed,
      0,
      `failed fleet calls: ${books.fleet.failures.slice(0, 5).join(' | ')}`,
    );
    assert.equal(books.tasks.lost, 0, `lost tasks: ${books.tasks.failures.slice(0, 5).join(' | ')}`);
    assert.ok(books.tasks.completed >= 10, `tasks ran through the roll (${books.tasks.completed})`);
    books.legacy.forEach((each, index) => {
      assert.ok(
        each.maxErrorsInARow <= 1,
        `legacy client ${index} had ${each.maxErrorsInARow} errors in a row`,
      );
      assert.ok(each.ok > before.legacy[index]!, `legacy client ${index} was served during the roll`);
      assert.ok(rolledAt - each.lastOkAt < 2_000, `legacy client ${index} is served after the roll`);
    });
  });

  test('SIGKILL one replica (a crash): what clients see', async (t) => {
    const load = new RollingLoad({ url: cluster.lbUrl });
    await load.start();
    await sleep(1_000);
    const killed = cluster.replicas[0]!;
    killed.child.kill('SIGKILL');
    await killed.exited;
    await sleep(2_000);
    await cluster.startReplica(0);
    await cluster.settle();
    await sleep(1_000);
    const books = await load.stop();
    t.diagnostic(
      `after SIGKILL: modern ${books.modern.ok} ok / ${books.modern.failed} failed [${[...new Set(books.modern.failures)].slice(0, 3).join(' | ')}]; ` +
        `tasks ${books.tasks.completed}/${books.tasks.started} completed, ${books.tasks.lost} lost [${[...new Set(books.tasks.failures)].slice(0, 3).join(' | ')}]; ` +
        `fleet ${books.fleet.ok} ok / ${books.fleet.failed} failed; legacy ${books.legacy
          .map(
            (each) =>
              `${each.errors} errors (max ${each.maxErrorsInARow} in a row) [${[...new Set(each.failures)].slice(0, 2).join(' | ')}]`,
          )
          .join('; ')}`,
    );
    // A crash may cost the calls it was running; clients must still be served afterwards.
    books.legacy.forEach((each, index) => {
      assert.ok(
        each.maxErrorsInARow <= 2,
        `legacy client ${index} had ${each.maxErrorsInARow} errors in a row`,
      );
    });
    assert.ok(books.modern.ok > 0);
    assert.equal(
      books.tasks.started,
      books.tasks.completed + books.tasks.lost,
      'every task ended one way or the other (none left working)',
    );
  });
});
