/**
 * Two principals against each other across three weft replicas (separate processes, one Redis
 * task store, one requestStateKey, one fleet queue served by a `weft worker`), behind a round-robin
 * balancer, so consecutive requests land on different replicas:
 * - a task Alice created through one replica is unknown to Bob through the others (get, update,
 *   cancel answer exactly as for an id that never existed) and keeps running for Alice;
 * - a fleet task's handler, on the worker, sees Alice as ctx.auth (the job carried her);
 * - Alice's requestState brought by Bob to another replica is refused as a mismatch; Alice's own
 *   retry, on a third replica, is answered.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { modernAnswer } from '../support/modern-request.js';
import { startReadyChild } from '../support/ready-child.js';
import { type RedisUnderTest, redisMissing, startRedis } from '../support/redis-server.js';
import { startRoundRobin } from '../support/round-robin-balancer.js';
import { ModernHttpPeer, type Wire } from '../transports/modern-http-peer.js';
import { bearer, PRINCIPALS } from './token-principals.js';

const missing = redisMissing();
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: {} };
const REPLICA = fileURLToPath(new URL('./binding-replica.js', import.meta.url));
const TOOLS = fileURLToPath(new URL('./binding-fleet-tools.js', import.meta.url));
const CLI = fileURLToPath(new URL('../../lib/cli.js', import.meta.url));
const QUEUE = 'weft-bindings';

/** How the worker and the replicas are started: ready once what they print (stdout or stderr) says so. */
const STARTING = { stdout: true, timeoutMs: 20_000 };

describe('bindings across three replicas, a Redis task store and the fleet', { skip: missing }, () => {
  let redis: RedisUnderTest;
  const children: ChildProcess[] = [];
  let targets: string[] = [];
  let workerPid = 0;
  let balancer: Server;
  let peer: ModernHttpPeer;
  const served: string[] = [];

  before(async () => {
    redis = await startRedis();
    const worker = await startReadyChild(
      [CLI, 'worker', TOOLS, '--redis', redis.url, '--queue', QUEUE, '--threads', '1'],
      { ...STARTING, name: 'the worker', ready: (output) => /weft worker: serving queue/.exec(output) },
    );
    children.push(worker.child);
    workerPid = worker.child.pid!;
    const env = { REDIS_URL: redis.url, STATE_KEY: randomBytes(32).toString('base64'), QUEUE };
    const replicas = await Promise.all(
      [0, 1, 2].map(() =>
        startReadyChild([REPLICA], {
          ...STARTING,
          name: 'the replica',
          env,
          ready: (output) => /binding replica listening on (\d+)/.exec(output),
        }),
      ),
    );
    for (const { child } of replicas) children.push(child);
    targets = replicas.map(({ ready }) => `http://127.0.0.1:${ready[1]}`);
    const front = await startRoundRobin(() => targets, served);
    balancer = front.server;
    peer = new ModernHttpPeer(front.url);
  });

  after(async () => {
    for (const child of children) child.kill('SIGKILL');
    await new Promise<void>((resolve) => (balancer ? balancer.close(() => resolve()) : resolve()));
    await redis?.stop();
  });

  async function rpc(
    token: string,
    method: string,
    params: Record<string, unknown>,
    capabilities: object = TASKS,
  ): Promise<Wire> {
    return modernAnswer(peer, method, params, { capabilities, headers: bearer(token) });
  }

  async function settled(token: string, taskId: string): Promise<Wire> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const task = (await rpc(token, 'tasks/get', { taskId })).result;
      if (['completed', 'failed', 'cancelled'].includes(task.status)) return task;
      assert.ok(Date.now() < deadline, `task still ${task.status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it("hides Alice's task from Bob on every replica (the unknown-task answer) and leaves it running", async () => {
    const created = (
      await rpc('alice-token', 'tools/call', { name: 'fleet_whoami', arguments: { ms: 60_000 } })
    ).result;
    assert.equal(created.resultType, 'task', JSON.stringify(created));
    const { taskId } = created;
    const first = served.length;
    const unknownId = randomUUID();
    for (const [method, extra] of [
      ['tasks/get', {}],
      ['tasks/update', { inputResponses: {} }],
      ['tasks/cancel', {}],
    ] as const) {
      for (let replica = 0; replica < 3; replica++) {
        const theirs = await rpc('bob-token', method, { taskId, ...extra });
        const none = await rpc('bob-token', method, { taskId: unknownId, ...extra });
        assert.equal(theirs.error?.code, -32602, `${method}: ${JSON.stringify(theirs)}`);
        assert.equal(theirs.error.message, none.error.message.replace(unknownId, taskId));
      }
    }
    assert.equal(new Set(served.slice(first)).size, 3, "bob's attempts reached all three replicas");
    for (let replica = 0; replica < 3; replica++) {
      assert.equal((await rpc('alice-token', 'tasks/get', { taskId })).result.status, 'working');
    }
    await rpc('alice-token', 'tasks/cancel', { taskId });
    assert.equal((await settled('alice-token', taskId)).status, 'cancelled');
  });

  it('carries the principal in the fleet job: the handler on the worker sees ctx.auth', async () => {
    const { taskId } = (await rpc('alice-token', 'tools/call', { name: 'fleet_whoami', arguments: {} }))
      .result;
    const task = await settled('alice-token', taskId);
    assert.equal(task.status, 'completed', JSON.stringify(task));
    const saw = JSON.parse(task.result.content[0].text);
    assert.equal(saw.pid, workerPid, 'it ran on the fleet worker');
    assert.deepEqual(saw.auth, JSON.parse(JSON.stringify(PRINCIPALS['alice-token'])));
    assert.equal(saw.frozen, true);
    // Without the tasks extension, a plain call on the fleet carries the principal as well.
    const plain = await rpc('bob-token', 'tools/call', { name: 'fleet_whoami', arguments: {} }, {});
    assert.equal(JSON.parse(plain.result.content[0].text).auth.subject, 'bob');
  });

  it("refuses Alice's requestState from Bob on another replica, and answers Alice's retry on a third", async () => {
    const elicit = { elicitation: {} };
    const first = served.length;
    const round = (await rpc('alice-token', 'tools/call', { name: 'local_ask', arguments: {} }, elicit))
      .result;
    assert.equal(round.resultType, 'input_required', JSON.stringify(round));
    const retry = {
      name: 'local_ask',
      arguments: {},
      inputResponses: { word: { action: 'accept', content: { word: 'weft' } } },
      requestState: round.requestState,
    };
    const stolen = await rpc('bob-token', 'tools/call', retry, elicit);
    assert.equal(stolen.error?.code, -32602, JSON.stringify(stolen));
    assert.equal(stolen.error.data.requestState, 'mismatch');
    const own = await rpc('alice-token', 'tools/call', retry, elicit);
    assert.equal(own.result.content[0].text, 'you said weft');
    assert.equal(new Set(served.slice(first, first + 3)).size, 3, 'three requests, three replicas');
  });
});
