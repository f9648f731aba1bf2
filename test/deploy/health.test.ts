/**
 * The readiness contract (docs/deploying.md), against a server in this process:
 * - starting: the probes' own port answers 503 `starting` until `listen` completes, then 200;
 * - ready: `/healthz` and `/readyz` on the MCP listener, no auth (the auth hook refuses everything
 *   else), never counted against a caller's limits, nothing but the phase in the body;
 * - draining: `/readyz` turns 503 at once, requests are still served for `drainDelayMs`, then the
 *   listener refuses connections; a task that can finish within `drainTimeoutMs` completes, one that
 *   cannot ends `failed` saying it may be run again;
 * - Redis down: `/readyz` says the task store is unreachable (no address), and ready again once back;
 * - off (`health: false`) or renamed.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { abortableSleep } from '../../lib/abortable-sleep.js';
import { connect } from '../../lib/client/index.js';
import {
  McpServer,
  MemoryTaskStore,
  RedisTaskStore,
  type TaskChange,
  type TaskRecord,
} from '../../lib/index.js';
import { type RedisUnderTest, redisMissing, startRedis } from '../support/redis-server.js';

async function probe(port: number, path: string, method = 'GET'): Promise<{ status: number; body: string }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { method });
  return { status: response.status, body: await response.text() };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function serverWith(options: Partial<ConstructorParameters<typeof McpServer>[0]> = {}): McpServer {
  return new McpServer({ name: 'health-test', version: '1.0.0', pool: { maxThreads: 1 }, ...options }).tool({
    name: 'wait',
    inputSchema: { type: 'object', properties: { ms: { type: 'integer' } } },
    task: 'optional',
    handler: async ({ ms }, ctx) => {
      await abortableSleep(ms as number, ctx.signal);
      return `waited ${ms}`;
    },
  });
}

describe('health and readiness probes', () => {
  const servers: McpServer[] = [];
  after(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  test('starting: the probes port says starting until listen completes, then ready', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    // A task store that is slow to become reachable keeps the server starting.
    class SlowStore extends MemoryTaskStore {
      override async ready(): Promise<void> {
        await gate;
      }
    }
    const server = serverWith({ tasks: { store: new SlowStore() } });
    servers.push(server);
    const listening = server.listen({ http: { port: 0, health: { port: 0 } }, handleSignals: false });
    let port: number | undefined;
    for (let i = 0; i < 100 && port === undefined; i++) {
      port = server.addresses.health?.port;
      if (port === undefined) await sleep(10);
    }
    assert.ok(port, 'the probes port opens before the server is ready');
    const starting = await probe(port, '/readyz');
    assert.equal(starting.status, 503);
    assert.equal(JSON.parse(starting.body).status, 'starting');
    assert.equal((await probe(port, '/healthz')).status, 200, 'alive while starting');
    open();
    await listening;
    assert.deepEqual(await probe(port, '/readyz'), { status: 200, body: '{"status":"ready"}' });
    const main = server.addresses.http!.port;
    assert.deepEqual(await probe(main, '/readyz'), { status: 200, body: '{"status":"ready"}' });
    assert.deepEqual(await probe(main, '/healthz'), { status: 200, body: '{"status":"ok"}' });
    assert.equal((await probe(main, '/readyz', 'HEAD')).status, 200);
    assert.equal((await probe(main, '/readyz', 'POST')).status, 405);
  });

  test('no auth and no per-caller limit applies to the probes', async () => {
    const server = serverWith({ limits: { perCaller: { callsPerMinute: 1 } } });
    servers.push(server);
    const refuseAll = () => ({ status: 401 as const, message: 'no token' });
    await server.listen({ http: { port: 0, auth: refuseAll }, handleSignals: false });
    const port = server.addresses.http!.port;
    const mcp = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', body: '{}' });
    assert.equal(mcp.status, 401, 'the endpoint itself is protected');
    for (let i = 0; i < 50; i++) assert.equal((await probe(port, '/readyz')).status, 200);
  });

  test('off, or at other paths', async () => {
    const off = serverWith();
    const renamed = serverWith();
    servers.push(off, renamed);
    await off.listen({ http: { port: 0, health: false }, handleSignals: false });
    await renamed.listen({
      http: { port: 0, health: { livePath: '/live', readyPath: '/ready' } },
      handleSignals: false,
    });
    assert.equal((await probe(off.addresses.http!.port, '/readyz')).status, 404);
    assert.equal((await probe(renamed.addresses.http!.port, '/readyz')).status, 404);
    assert.equal((await probe(renamed.addresses.http!.port, '/ready')).status, 200);
    assert.equal((await probe(renamed.addresses.http!.port, '/live')).status, 200);
    const clash = serverWith();
    await assert.rejects(
      clash.listen({ http: { port: 0, health: { readyPath: '/mcp' } }, handleSignals: false }),
      /readyPath \/mcp is the MCP endpoint's path/,
    );
    await clash.close();
  });

  test('draining: 503 at once, served for drainDelayMs, then refused; tasks finish or fail saying retry', async () => {
    // The task outcomes as the store received them (the client, polling this very server, cannot
    // read them once its listener is closed: behind a balancer another replica would answer).
    const ended = new Map<string, TaskRecord>();
    class RecordingStore extends MemoryTaskStore {
      override async update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
        const record = await super.update(taskId, change);
        if (record && record.status !== 'working') ended.set(taskId, record);
        return record;
      }
    }
    const server = serverWith({
      drainDelayMs: 600,
      drainTimeoutMs: 1_500,
      tasks: { store: new RecordingStore(), pollIntervalMs: 100 },
    });
    await server.listen({ http: { port: 0 }, handleSignals: false });
    const port = server.addresses.http!.port;
    const url = `http://127.0.0.1:${port}/mcp`;
    const client = await connect(url, { protocol: 'modern', tasks: true });
    const ids: string[] = [];
    for (const ms of [900, 60_000]) {
      const onTaskCreated = (task: Record<string, unknown>) => ids.push(task.taskId as string);
      client.callTool('wait', { ms }, { onTaskCreated }).catch(() => {});
      while (ids.length === 0 || ids.length < (ms === 900 ? 1 : 2)) await sleep(10);
    }
    const [short, long] = ids as [string, string];
    const started = Date.now();
    const drained = server.drain();
    const draining = await probe(port, '/readyz');
    assert.equal(draining.status, 503);
    assert.equal(JSON.parse(draining.body).status, 'draining');
    // Still served: a new client and a call, within the delay.
    const late = await connect(url, { protocol: 'modern' });
    const answer = await late.callTool('wait', { ms: 10 });
    assert.equal((answer.content as { text: string }[])[0]?.text, 'waited 10');
    await sleep(700 - (Date.now() - started));
    await assert.rejects(
      fetch(url, { method: 'POST', body: '{}' }),
      'the listener is closed after the delay',
    );
    await drained;
    const took = Date.now() - started;
    assert.ok(took >= 1_400 && took < 5_000, `drained in ${took} ms (drainTimeoutMs 1500)`);
    assert.equal(ended.get(short)?.status, 'completed', JSON.stringify(ended.get(short)));
    const failed = ended.get(long);
    assert.equal(failed?.status, 'failed', JSON.stringify(failed));
    assert.match(JSON.stringify(failed), /shut down before tool \\"wait\\" finished; run it again/);
    await Promise.all([client.close(), late.close()]);
  });
});

const missing = redisMissing();
describe('readiness follows the shared task store', { skip: missing }, () => {
  let redis: RedisUnderTest;
  const servers: McpServer[] = [];
  after(async () => {
    await Promise.all(servers.map((server) => server.close()));
    await redis?.stop();
  });

  test('Redis down: 503 saying the task store is unreachable, ready again once it is back', async () => {
    redis = await startRedis();
    const server = serverWith({ tasks: { store: new RedisTaskStore({ url: redis.url }) } });
    servers.push(server);
    const { port, down } = await readyUntilRedisStops(server, redis);
    assert.deepEqual(JSON.parse(down.body), {
      status: 'unavailable',
      reason: 'the task store is unreachable',
    });
    assert.doesNotMatch(down.body, new RegExp(String(redis.port)), 'no address in the body');
    redis = await startRedis(redis.port);
    const back = await readyAgain(port);
    assert.equal(back.body, '{"status":"ready"}');
  });
});

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, withinMs: number): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await sleep(100);
  }
}

/**
 * Serves `server` on a free port, checks `/readyz` says ready, stops Redis and polls `/readyz`
 * (5 s at most) until it turns 503. Returns the port and that last answer, for the caller to check
 * what it says.
 */
async function readyUntilRedisStops(
  server: McpServer,
  redis: RedisUnderTest,
): Promise<{ port: number; down: { status: number; body: string } }> {
  await server.listen({ http: { port: 0 }, handleSignals: false });
  const port = server.addresses.http!.port;
  assert.equal((await probe(port, '/readyz')).status, 200);
  await redis.stop();
  const down = await until(
    () => probe(port, '/readyz'),
    (answer) => answer.status === 503,
    5_000,
  );
  return { port, down };
}

/** Polls `/readyz` (8 s at most) until it is 200 again, once Redis is back; returns the last answer. */
function readyAgain(port: number): Promise<{ status: number; body: string }> {
  return until(
    () => probe(port, '/readyz'),
    (answer) => answer.status === 200,
    8_000,
  );
}

describe('readiness follows the fleet', { skip: missing }, () => {
  test("the fleet's Redis down: 503 saying so; options are checked", async () => {
    let redis = await startRedis();
    const server = serverWith({ fleet: { redis: redis.url, queue: 'health-test' } });
    try {
      const { port, down } = await readyUntilRedisStops(server, redis);
      assert.deepEqual(JSON.parse(down.body), {
        status: 'unavailable',
        reason: "the fleet's Redis is unreachable",
      });
      // Back before the server closes: a fleet link closes cleanly only while its Redis answers.
      redis = await startRedis(redis.port);
      const back = await readyAgain(port);
      assert.equal(back.status, 200);
    } finally {
      await server.close();
      await redis.stop();
    }
    assert.throws(() => serverWith({ drainDelayMs: -1 }), /drainDelayMs must be a non-negative number/);
    assert.throws(
      () => serverWith({ drainTimeoutMs: Number.NaN }),
      /drainTimeoutMs must be a non-negative number/,
    );
  });
});
