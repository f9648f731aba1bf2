/**
 * A task on the fleet outlives the router replica that accepted it (issue 15, part 6): a
 * `spin {ms: 3000}` task is created through router A, A is SIGKILLed while a worker runs it, and
 * router B, once A's lease on the task has lapsed, adopts it and follows the job to its end: the
 * task reads completed through B, with the worker's result, within seconds of the work ending.
 * Also: a task whose router dies the moment it answered still completes (a fleet task is answered
 * only once its job is in Redis), and a router stopped gracefully hands its fleet tasks over.
 * Tasks are made in the modern era, whose tasks belong to no session, so any replica can read one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { redisMissing } from '../support/redis-server.js';
import { modernRpc, type Wire } from './fleet-clients.js';
import { cpuOver, FleetCluster, until } from './fleet-cluster.js';

const WORK_MS = 3_000;
const COMPLETED_WITHIN_MS = 15_000;

describe('fleet: a router SIGKILLed mid-task', { skip: redisMissing() }, () => {
  let cluster: FleetCluster;

  before(async () => {
    cluster = await FleetCluster.start({ routers: 2, workers: 2 });
  });

  after(async () => {
    await cluster?.stop();
  });

  /** Samples the workers' CPU over `windowMs` until one has spent `ticks` (2 s at most): the task runs. */
  const workersBusy = (windowMs: number, ticks: number) =>
    until(
      () =>
        cpuOver(
          cluster.workers.map((worker) => worker.pid),
          windowMs,
        ),
      (sample) => Math.max(...sample) >= ticks,
      2_000,
      0,
    );

  /** Reads the task through `url` every 200 ms until it is no longer working (COMPLETED_WITHIN_MS at most). */
  const settledThrough = (url: URL, taskId: string) =>
    until(
      () => modernRpc(url, 'tasks/get', { taskId }),
      (reply) => reply.result?.status !== 'working',
      COMPLETED_WITHIN_MS,
      200,
    );

  it('completes the task and serves its result through the other router', async (t) => {
    const [a, b] = cluster.routers as [(typeof cluster.routers)[0], (typeof cluster.routers)[0]];
    const created = await modernRpc(a.url, 'tools/call', { name: 'spin', arguments: { ms: WORK_MS } });
    assert.equal(created.result?.resultType, 'task', JSON.stringify(created));
    const { taskId } = created.result;
    const ticks = await workersBusy(200, 8);
    const runner = cluster.workers[ticks.indexOf(Math.max(...ticks))]!;
    await a.kill('SIGKILL');
    const killedAt = Date.now();

    let last: Wire;
    try {
      last = await settledThrough(b.url, taskId);
    } catch (error) {
      t.diagnostic(cluster.logs());
      throw error;
    }
    const took = Date.now() - killedAt;
    t.diagnostic(
      `read as ${last.result?.status} through B ${took} ms after A's SIGKILL: ${JSON.stringify(last)}`,
    );
    assert.equal(last.result?.status, 'completed', JSON.stringify(last));
    const text: string = last.result.result?.content?.[0]?.text ?? '';
    assert.match(
      text,
      new RegExp(`^spun ${WORK_MS} ms on ${runner.pid} `),
      'the worker that ran it answered',
    );
    // And it stays readable: a second read through B agrees.
    const again = await modernRpc(b.url, 'tasks/get', { taskId });
    assert.equal(again.result?.status, 'completed');
  });

  it('completes a task whose job ended before its router was noticed dead (the job finished unwatched)', async (t) => {
    const replacement = await cluster.startRouter();
    const [b, c] = [cluster.routers[1]!, replacement];
    // 1 s of work, seen running before the kill, ends inside the 1.5 s lease: nobody follows the
    // job when it finishes, and its result waits in BullMQ for the replica that adopts the task.
    const created = await modernRpc(c.url, 'tools/call', { name: 'spin', arguments: { ms: 1_000 } });
    assert.equal(created.result?.resultType, 'task', JSON.stringify(created));
    const { taskId } = created.result;
    await workersBusy(150, 6);
    await c.kill('SIGKILL');
    const killedAt = Date.now();
    const last = await settledThrough(b.url, taskId);
    t.diagnostic(
      `read as ${last.result?.status} ${Date.now() - killedAt} ms after the SIGKILL: ${JSON.stringify(last.result)}`,
    );
    assert.equal(last.result?.status, 'completed', JSON.stringify(last));
    assert.match(last.result.result?.content?.[0]?.text ?? '', /^spun 1000 ms on \d+ /);
  });

  it('completes a task whose router was SIGKILLed the moment it answered (the job was in Redis first)', async () => {
    const replacement = await cluster.startRouter();
    const b = cluster.routers[1]!;
    const created = await modernRpc(replacement.url, 'tools/call', { name: 'spin', arguments: { ms: 300 } });
    assert.equal(created.result?.resultType, 'task', JSON.stringify(created));
    await replacement.kill('SIGKILL');
    const last = await settledThrough(b.url, created.result.taskId);
    assert.equal(last.result?.status, 'completed', JSON.stringify(last));
  });

  it('hands a fleet task over when its router stops gracefully: it completes instead of failing as shut down', async (t) => {
    const replacement = await cluster.startRouter();
    const b = cluster.routers[1]!;
    const created = await modernRpc(replacement.url, 'tools/call', {
      name: 'spin',
      arguments: { ms: 2_000 },
    });
    assert.equal(created.result?.resultType, 'task', JSON.stringify(created));
    await workersBusy(150, 6);
    await replacement.kill('SIGTERM');
    const stoppedAt = Date.now();
    const last = await settledThrough(b.url, created.result.taskId);
    t.diagnostic(`read as ${last.result?.status} ${Date.now() - stoppedAt} ms after the SIGTERM`);
    assert.equal(last.result?.status, 'completed', JSON.stringify(last));
    assert.match(last.result.result?.content?.[0]?.text ?? '', /^spun 2000 ms on \d+ /);
  });
});
