/**
 * Two router replicas and two `weft worker` processes on one real redis-server: what a client sees
 * of calls that run on the fleet. Calls spread over both workers and never run on a router; a
 * placement-local tool runs on the router; progress and log from a worker reach the client that
 * made the call; a result JSON cannot carry is an isError; a legacy question is answered through
 * the client's elicitation handler; a modern (2026-07-28) client's call runs on the fleet too, and
 * a modern multi-round call ends its attempt at the worker's question and completes through the
 * other router with the answer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client as ModernClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { redisMissing } from '../support/redis-server.js';
import { legacyClient, modernRpc, textOf } from './fleet-clients.js';
import { FleetCluster } from './fleet-cluster.js';

describe('fleet calls: two routers, two workers', { skip: redisMissing() }, () => {
  let cluster: FleetCluster;
  let clients: Client[] = [];
  const elicited: Record<string, unknown>[] = [];
  const logs: unknown[] = [];

  before(async () => {
    cluster = await FleetCluster.start({ routers: 2, workers: 2 });
    clients = await Promise.all(
      cluster.routers.map((router) => legacyClient(router.url, { elicitation: {} })),
    );
    for (const client of clients) {
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        elicited.push(request.params as Record<string, unknown>);
        return { action: 'accept', content: { name: 'Ada' } };
      });
      client.setNotificationHandler(LoggingMessageNotificationSchema, (note) => {
        logs.push(note.params.data);
      });
    }
  });

  after(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await cluster?.stop();
  });

  it('spreads parallel calls through both routers over both workers, never a router', async () => {
    const calls = Array.from({ length: 8 }, (_, index) =>
      clients[index % 2]!.callTool({ name: 'whoami', arguments: { ms: 100 } }),
    );
    const pids = (await Promise.all(calls)).map((result) => Number(textOf(result)));
    const workerPids = cluster.workers.map((worker) => worker.pid);
    const routerPids = cluster.routers.map((router) => router.pid);
    for (const pid of workerPids) assert.ok(pids.includes(pid), `worker ${pid} served one of ${pids}`);
    for (const pid of pids) {
      assert.ok(workerPids.includes(pid), `every call ran on a worker (${workerPids}): got ${pid}`);
      assert.ok(!routerPids.includes(pid));
    }
  });

  it('runs a placement-local tool on the router that took the call', async () => {
    for (const [index, client] of clients.entries()) {
      const result = await client.callTool({ name: 'local_pid', arguments: {} });
      assert.equal(Number(textOf(result)), cluster.routers[index]!.pid);
    }
  });

  it("delivers a worker's progress and log to the client that made the call", async () => {
    const progress: { progress: number; total?: number; message?: string }[] = [];
    const result = await clients[1]!.callTool({ name: 'steps', arguments: { n: 5 } }, CallToolResultSchema, {
      onprogress: (note) => progress.push(note),
    });
    assert.equal(textOf(result), 'did 5 steps');
    assert.ok(progress.length >= 1, 'progress reached the client');
    const last = progress.at(-1)!;
    assert.equal(last.total, 5);
    assert.ok(last.progress >= 1 && last.progress <= 5, JSON.stringify(progress));
    const increasing = progress.every(
      (note, index) => index === 0 || note.progress > progress[index - 1]!.progress,
    );
    assert.ok(increasing, `progress only goes forward: ${JSON.stringify(progress)}`);
    assert.ok(
      logs.some((data) => JSON.stringify(data) === JSON.stringify({ starting: 5 })),
      `the log line arrived: ${JSON.stringify(logs)}`,
    );
  });

  it('answers a result JSON cannot carry with an isError naming JSON', async () => {
    const result = (await clients[0]!.callTool({ name: 'bigint', arguments: {} })) as {
      isError?: boolean;
    };
    assert.equal(result.isError, true);
    assert.match(textOf(result), /JSON/);
  });

  it("asks a legacy client the tool's question through its elicitation handler", async () => {
    const before = elicited.length;
    const result = await clients[0]!.callTool({ name: 'greet', arguments: {} });
    assert.equal(textOf(result), 'hello Ada');
    assert.equal(elicited.length, before + 1, 'asked exactly once');
    assert.equal(elicited.at(-1)!.message, 'Your name?');
  });

  it("runs a modern client's call on a worker", async () => {
    const client = new ModernClient(
      { name: 'weft-fleet-modern', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new StreamableHTTPClientTransport(cluster.routers[1]!.url));
    try {
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      const pid = Number(textOf(result));
      assert.ok(
        cluster.workers.some((worker) => worker.pid === pid),
        `ran on a worker: ${pid}`,
      );
    } finally {
      await client.close();
    }
  });

  it("ends a modern attempt at the worker's question; the answer, sent through the other router, completes the call", async () => {
    const [a, b] = cluster.routers as [(typeof cluster.routers)[0], (typeof cluster.routers)[0]];
    const asks = { elicitation: {} };
    const round1 = await modernRpc(a.url, 'tools/call', { name: 'greet', arguments: {} }, asks);
    assert.equal(round1.result?.resultType, 'input_required', JSON.stringify(round1));
    assert.deepEqual(Object.keys(round1.result.inputRequests), ['name']);
    assert.equal(round1.result.inputRequests.name.method, 'elicitation/create');
    const done = await modernRpc(
      b.url,
      'tools/call',
      {
        name: 'greet',
        arguments: {},
        inputResponses: { name: { action: 'accept', content: { name: 'Grace' } } },
        requestState: round1.result.requestState,
      },
      asks,
    );
    assert.equal(done.result?.resultType, 'complete', JSON.stringify(done));
    assert.equal(done.result.content[0].text, 'hello Grace');
  });
});
