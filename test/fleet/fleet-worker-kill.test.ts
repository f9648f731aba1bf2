/**
 * A `weft worker` SIGKILLed mid-call. Its BullMQ lock lapses (--lock-ms 1500) and the router,
 * checking every 250 ms, answers the call -32603 within that bound plus a margin, and the job is
 * not run again on the surviving worker; a tool that is idempotent and opted in to retries
 * (`retried`, fleetRetries 1) instead runs again on the other worker and answers with its pid.
 * The killed worker is replaced after each test.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { redisMissing } from '../support/redis-server.js';
import { legacyClient, textOf } from './fleet-clients.js';
import { cpuOver, FleetCluster, type FleetProcess, LOCK_MS, until } from './fleet-cluster.js';

/** lock-ms + the routers' checkIntervalMs (250) + a generous margin for a loaded machine. */
const ANSWERED_WITHIN_MS = 6_000;
const SPINNING = 10;

describe('fleet: a worker SIGKILLed mid-call', { skip: redisMissing() }, () => {
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

  /** The worker whose CPU shows it running the call (sampled until one clearly spins). */
  async function runningWorker(): Promise<FleetProcess> {
    const workers = [...cluster.workers];
    const ticks = await until(
      () =>
        cpuOver(
          workers.map((worker) => worker.pid),
          300,
        ),
      (sample) => Math.max(...sample) >= SPINNING,
      5_000,
      0,
    );
    return workers[ticks.indexOf(Math.max(...ticks))]!;
  }

  it('answers the call -32603 within the lock bound, and does not run it again elsewhere', async (t) => {
    const call = client.callTool({ name: 'spin', arguments: { ms: 30_000 } }).then(
      (result) => ({ result, error: undefined }),
      (error: { code?: number; message?: string }) => ({ result: undefined, error }),
    );
    const victim = await runningWorker();
    const survivor = cluster.workers.find((worker) => worker !== victim)!;
    await victim.kill('SIGKILL');
    const killedAt = Date.now();
    const { result, error } = await call;
    const took = Date.now() - killedAt;
    t.diagnostic(`answered ${took} ms after the SIGKILL: ${error?.code} ${error?.message}`);
    assert.equal(result, undefined, `no result from a killed worker: ${JSON.stringify(result)}`);
    assert.equal(error?.code, -32603, `panicked: ${JSON.stringify(error)}`);
    assert.ok(took < ANSWERED_WITHIN_MS, `answered ${took} ms after the kill (lock ${LOCK_MS} ms)`);
    // BullMQ's stalled check on the survivor must fail the job, not run it a second time.
    const survivorTicks = await cpuOver([survivor.pid], 1_500);
    assert.ok(survivorTicks[0]! < 15, `the surviving worker stays idle: ${survivorTicks} ticks in 1.5 s`);
    await cluster.replaceWorker(victim);
    const next = await client.callTool({ name: 'whoami', arguments: {} });
    assert.ok(cluster.workers.some((worker) => worker.pid === Number(textOf(next))));
  });

  it('runs an idempotent, retried call again on the other worker, which answers its own pid', async (t) => {
    const call = client.callTool({ name: 'retried', arguments: { ms: 3_000 } });
    const victim = await runningWorker();
    const survivor = cluster.workers.find((worker) => worker !== victim)!;
    await victim.kill('SIGKILL');
    const killedAt = Date.now();
    const result = await call;
    const took = Date.now() - killedAt;
    t.diagnostic(`answered by ${textOf(result)} ${took} ms after the SIGKILL of ${victim.pid}`);
    assert.equal(Number(textOf(result)), survivor.pid, 'the survivor ran it again');
    assert.ok(took < ANSWERED_WITHIN_MS + 3_000, `answered ${took} ms after the kill`);
    await cluster.replaceWorker(victim);
  });
});
