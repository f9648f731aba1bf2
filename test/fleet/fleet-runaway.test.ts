/**
 * A runaway on the fleet is really stopped: `spin {ms: 600000}` never looks at its cancel flag, so
 * only the worker terminating its thread ends it. Cancelled through the other replica (a task:
 * modern tasks are not tied to a session, so any replica may cancel one) or aborted by its own
 * client, every router's and worker's CPU is quiet within a second, and the fleet serves the next
 * call.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { redisMissing } from '../support/redis-server.js';
import { legacyClient, modernRpc, textOf } from './fleet-clients.js';
import { cpuOver, FleetCluster, idleAfter, until } from './fleet-cluster.js';

/** Ticks (10 ms each) a spinning worker shows over 600 ms, generously low for a loaded machine. */
const SPINNING = 20;
/** Ticks over a whole second that still count as idle. */
const IDLE = 15;

describe('fleet runaway: cancelled across replicas, aborted by its client', { skip: redisMissing() }, () => {
  let cluster: FleetCluster;
  let client: Client;

  before(async () => {
    cluster = await FleetCluster.start({ routers: 2, workers: 2 });
    client = await legacyClient(cluster.routers[0]!.url);
  });

  after(async () => {
    await client?.close().catch(() => {});
    await cluster?.stop();
  });

  const workerPids = () => cluster.workers.map((worker) => worker.pid);

  async function assertQuietWithinASecond(since: number, report: (line: string) => void): Promise<void> {
    const reading = await idleAfter(cluster.pids, since, { withinMs: 1_000 });
    const detail = `pids ${cluster.pids}, slices ${JSON.stringify(reading.slices)}, then ${reading.confirm}`;
    report(`quiet ${reading.quietAfterMs} ms after; ${detail}`);
    assert.ok(reading.quietAfterMs !== undefined, `every process quiet within 1 s: ${detail}`);
    assert.ok(
      reading.confirm.every((ticks) => ticks < IDLE),
      `and quiet over the next second: ${detail}`,
    );
  }

  async function assertServesNext(): Promise<void> {
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    assert.ok(workerPids().includes(Number(textOf(result))), `served by a worker: ${textOf(result)}`);
  }

  it('cancels a spin task created on router A through router B: cancelled, all idle within 1 s', async (t) => {
    const [a, b] = cluster.routers as [(typeof cluster.routers)[0], (typeof cluster.routers)[0]];
    const created = await modernRpc(a.url, 'tools/call', { name: 'spin', arguments: { ms: 600_000 } });
    assert.equal(created.result?.resultType, 'task', JSON.stringify(created));
    const { taskId } = created.result;
    const busy = await cpuOver(workerPids(), 600);
    assert.ok(Math.max(...busy) >= SPINNING, `a worker spins: ${busy}`);

    const ack = await modernRpc(b.url, 'tasks/cancel', { taskId });
    const cancelledAt = Date.now();
    assert.equal(ack.error, undefined, JSON.stringify(ack));
    await assertQuietWithinASecond(cancelledAt, (line) => t.diagnostic(line));
    for (const router of [a, b]) {
      const task = await modernRpc(router.url, 'tasks/get', { taskId });
      assert.equal(task.result?.status, 'cancelled', JSON.stringify(task));
    }
    await assertServesNext();
  });

  it('stops a plain call its client aborted: all idle within 1 s, the next call served', async (t) => {
    const controller = new AbortController();
    const call = client.callTool({ name: 'spin', arguments: { ms: 600_000 } }, undefined, {
      signal: controller.signal,
    });
    const settled = call.then(
      () => 'answered',
      (error: Error) => `rejected: ${error.message}`,
    );
    // Aborted once the spin is seen running, so the cancel is one of a running job.
    await until(
      () => cpuOver(workerPids(), 300),
      (ticks) => Math.max(...ticks) >= SPINNING / 2,
      5_000,
      0,
    );
    controller.abort('the test gave up');
    const abortedAt = Date.now();
    assert.match(await settled, /^rejected/);
    await assertQuietWithinASecond(abortedAt, (line) => t.diagnostic(line));
    await assertServesNext();
  });
});
