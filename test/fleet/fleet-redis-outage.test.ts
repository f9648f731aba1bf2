/**
 * The fleet's Redis killed and started again on the same port. While it is down nothing hangs: a
 * call in flight ends at once (panicked: its outcome can no longer be followed), its worker stops
 * the work, and a new call is
 * refused fast with -32010 "The fleet is unavailable", which names no address (the detail is
 * logged, never sent: hardening item 6). Once it is back, both routers and both workers serve
 * again within seconds, without restarting anything.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { redisMissing } from '../support/redis-server.js';
import { legacyClient, textOf } from './fleet-clients.js';
import { FleetCluster, idleAfter, until } from './fleet-cluster.js';

const FAILS_WITHIN_MS = 2_000;
const RESUMES_WITHIN_MS = 15_000;

interface Attempt {
  text?: string;
  code?: number;
  message?: string;
  tookMs: number;
}

async function attempt(client: Client, name: string, args: Record<string, unknown>): Promise<Attempt> {
  const started = Date.now();
  try {
    const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: 20_000 })) as {
      isError?: boolean;
    };
    const text = textOf(result);
    return result.isError
      ? { message: text, tookMs: Date.now() - started }
      : { text, tookMs: Date.now() - started };
  } catch (error) {
    const { code, message } = error as { code?: number; message?: string };
    return { code, message, tookMs: Date.now() - started };
  }
}

describe('fleet: Redis stopped and restarted', { skip: redisMissing() }, () => {
  let cluster: FleetCluster;
  let clients: Client[] = [];

  before(async () => {
    cluster = await FleetCluster.start({ routers: 2, workers: 2 });
    clients = await Promise.all(cluster.routers.map((router) => legacyClient(router.url)));
  });

  after(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await cluster?.stop();
  });

  it('fails fast while Redis is down, naming no address, and serves again once it is back', async (t) => {
    const [a, b] = clients as [Client, Client];
    assert.ok((await attempt(a, 'whoami', {})).text, 'the fleet serves before the outage');

    const inFlight = attempt(a, 'spin', { ms: 5_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await cluster.stopRedis();
    const killedAt = Date.now();
    const during = await inFlight;
    const inFlightMs = Date.now() - killedAt;
    t.diagnostic(`in flight at the kill: ${JSON.stringify(during)} ${inFlightMs} ms after it`);
    assert.equal(
      during.text,
      undefined,
      `no result for a call whose outcome was lost: ${JSON.stringify(during)}`,
    );
    assert.ok(inFlightMs < FAILS_WITHIN_MS, `the call in flight ended ${inFlightMs} ms after the kill`);
    // Its worker stops the orphaned work too (nobody could read its result).
    const workersIdle = await idleAfter(
      cluster.workers.map((worker) => worker.pid),
      killedAt,
      { withinMs: 1_500 },
    );
    t.diagnostic(`workers after the kill: ${JSON.stringify(workersIdle)}`);
    assert.ok(workersIdle.quietAfterMs !== undefined, `workers quiet: ${JSON.stringify(workersIdle)}`);

    for (const client of [a, b]) {
      const refused = await attempt(client, 'whoami', {});
      t.diagnostic(`a new call while Redis is down: ${JSON.stringify(refused)}`);
      assert.equal(refused.text, undefined, `refused: ${JSON.stringify(refused)}`);
      assert.equal(refused.code, -32010, `refused as overloaded: ${JSON.stringify(refused)}`);
      assert.match(refused.message ?? '', /The fleet is unavailable/);
      assert.doesNotMatch(
        refused.message ?? '',
        /redis|127\.0\.0\.1|ECONNREFUSED/i,
        'no address reaches the client',
      );
      assert.ok(refused.tookMs < FAILS_WITHIN_MS, `refused in ${refused.tookMs} ms`);
    }

    await cluster.restartRedis();
    const restartedAt = Date.now();
    const workerPids = new Set(cluster.workers.map((worker) => String(worker.pid)));
    for (const [index, client] of [a, b].entries()) {
      const back = await until(
        () => attempt(client, 'whoami', {}),
        (tried) => tried.text !== undefined,
        RESUMES_WITHIN_MS,
        250,
      );
      t.diagnostic(`router ${index} serves again ${Date.now() - restartedAt} ms after the restart`);
      assert.ok(workerPids.has(back.text!), `served by a worker: ${back.text}`);
    }
    // Both workers take jobs again: calls that overlap must be spread over both.
    const seen = new Set<string>();
    await until(
      async () => {
        const round = await Promise.all([a, b, a, b].map((client) => attempt(client, 'whoami', { ms: 150 })));
        for (const tried of round) if (tried.text) seen.add(tried.text);
        return [...seen];
      },
      (pids) => pids.length === 2,
      RESUMES_WITHIN_MS,
      250,
    );
    t.diagnostic(`both workers serve ${Date.now() - restartedAt} ms after the restart`);
    assert.deepEqual([...seen].sort(), [...workerPids].sort());
  });
});
