/**
 * Three weft replicas (separate processes, the 2026-07-28 era, one requestStateKey) sharing one
 * real redis-server, behind a round-robin HTTP balancer (http-proxy), so consecutive requests land
 * on different replicas:
 * - a `spin {ms: 600000}` task created through one is polled through another and cancelled through
 *   a third: it reads `cancelled`, and every replica's CPU is idle within a second;
 * - a task's input crosses replicas (input_required seen on one, tasks/update sent to another, the
 *   task resumed on the one running it), and so do multi-round requests (sealed requestState);
 * - SIGKILL of the replica running a task: the others read it `failed` within its lease.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cpuOver } from '../support/cpu-ticks.js';
import { modernAnswer } from '../support/modern-request.js';
import { startReadyChild } from '../support/ready-child.js';
import { type RedisUnderTest, redisMissing, startRedis } from '../support/redis-server.js';
import { startRoundRobin } from '../support/round-robin-balancer.js';
import { ModernHttpPeer, type Wire } from '../transports/modern-http-peer.js';

const missing = redisMissing();
const LEASE_MS = 1_500;
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: {} };
const replicaEntry = fileURLToPath(new URL('./replica-server.js', import.meta.url));

interface Replica {
  child: ChildProcess;
  port: number;
  target: string;
}

async function startReplica(redisUrl: string, stateKey: string): Promise<Replica> {
  const { child, ready } = await startReadyChild([replicaEntry], {
    name: 'the replica',
    env: { REDIS_URL: redisUrl, STATE_KEY: stateKey, LEASE_MS: String(LEASE_MS) },
    stdout: true,
    timeoutMs: 15_000,
    ready: (output) => /replica listening on (\d+)/.exec(output),
  });
  const port = Number(ready[1]);
  return { child, port, target: `http://127.0.0.1:${port}` };
}

describe('three replicas behind a round-robin balancer', { skip: missing }, () => {
  let redis: RedisUnderTest;
  let replicas: Replica[] = [];
  let balancer: Server;
  let peer: ModernHttpPeer;
  /** Which replica served each request, in order (the balancer's own record). */
  const served: string[] = [];

  before(async () => {
    redis = await startRedis();
    const stateKey = randomBytes(32).toString('base64');
    replicas = await Promise.all([0, 1, 2].map(() => startReplica(redis.url, stateKey)));
    const live = () =>
      replicas
        .filter((replica) => replica.child.exitCode === null && replica.child.signalCode === null)
        .map((replica) => replica.target);
    const front = await startRoundRobin(live, served);
    balancer = front.server;
    peer = new ModernHttpPeer(front.url);
  });

  after(async () => {
    for (const replica of replicas) replica.child.kill('SIGKILL');
    await new Promise<void>((resolve) => balancer?.close(() => resolve()));
    await redis?.stop();
  });

  /** One modern request through the balancer; resolves the JSON-RPC reply. */
  async function rpc(
    method: string,
    params: Record<string, unknown>,
    capabilities: object = TASKS,
  ): Promise<Wire> {
    return modernAnswer(peer, method, params, { capabilities });
  }

  const task = async (taskId: string) => (await rpc('tasks/get', { taskId })).result;

  it('creates a spin task through one replica, polls through another, cancels through a third: cancelled, every CPU idle within 1 s', async () => {
    const first = served.length;
    const created = (await rpc('tools/call', { name: 'spin', arguments: { ms: 600_000 } })).result;
    assert.equal(created.resultType, 'task');
    const { taskId } = created;
    assert.equal((await task(taskId)).status, 'working');
    const pids = replicas.map((replica) => replica.child.pid!);
    const busy = await cpuOver(pids, 800);
    assert.ok(Math.max(...busy) >= 8, `one replica spins: ${busy}`);
    const ack = (await rpc('tasks/cancel', { taskId })).result;
    const cancelledAt = Date.now();
    assert.equal(ack.resultType, 'complete');
    assert.equal(
      new Set(served.slice(first, first + 3)).size,
      3,
      'call, poll and cancel reached three replicas',
    );

    let idle: number[] = [];
    while (Date.now() - cancelledAt < 1_000) {
      idle = await cpuOver(pids, 150);
      if (idle.every((ticks) => ticks <= 2)) break;
    }
    assert.ok(
      idle.every((ticks) => ticks <= 2),
      `every replica idle within 1 s of the cancel: ${idle}`,
    );
    assert.ok(Date.now() - cancelledAt <= 1_200);
    for (let i = 0; i < 3; i++) assert.equal((await task(taskId)).status, 'cancelled');
  });

  it("answers a task's input through another replica, and multi-round requests cross replicas", async () => {
    const { taskId } = (await rpc('tools/call', { name: 'ask', arguments: {} })).result;
    let now = await task(taskId);
    const deadline = Date.now() + 10_000;
    while (now.status !== 'input_required' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      now = await task(taskId);
    }
    assert.deepEqual(Object.keys(now.inputRequests), ['word']);
    await rpc('tasks/update', {
      taskId,
      inputResponses: { word: { action: 'accept', content: { word: 'shuttle' } } },
    });
    while (now.status !== 'completed' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      now = await task(taskId);
    }
    assert.equal(now.status, 'completed');
    assert.equal(now.result.content[0].text, 'you said shuttle');

    // Without the tasks extension the same tool answers in rounds; the retry lands elsewhere.
    const first = served.length;
    const round = (await rpc('tools/call', { name: 'ask', arguments: {} }, { elicitation: {} })).result;
    assert.equal(round.resultType, 'input_required');
    const retry = await rpc(
      'tools/call',
      {
        name: 'ask',
        arguments: {},
        inputResponses: { word: { action: 'accept', content: { word: 'warp' } } },
        requestState: round.requestState,
      },
      { elicitation: {} },
    );
    assert.notEqual(served[first], served[first + 1]);
    assert.equal(retry.result.content[0].text, 'you said warp');
  });

  it('fails the task of a SIGKILLed replica within its lease, as read from the others', async () => {
    const { taskId } = (await rpc('tools/call', { name: 'spin', arguments: { ms: 600_000 } })).result;
    const pids = replicas.map((replica) => replica.child.pid!);
    const ticks = await cpuOver(pids, 500);
    const runner = replicas[ticks.indexOf(Math.max(...ticks))]!;
    runner.child.kill('SIGKILL');
    const killedAt = Date.now();
    await new Promise((resolve) => runner.child.once('exit', resolve));
    let now = await task(taskId);
    while (now.status === 'working' && Date.now() - killedAt < LEASE_MS * 3) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      now = await task(taskId);
    }
    const took = Date.now() - killedAt;
    assert.equal(now.status, 'failed', `status ${now.status} after ${took} ms`);
    assert.match(now.error.message, /replica running this task stopped/);
    // The lease lapses LEASE_MS after its last renewal, and a sweep runs every LEASE_MS / 2.
    assert.ok(took <= LEASE_MS * 2 + 500, `failed ${took} ms after the kill (lease ${LEASE_MS} ms)`);
  });
});
