/**
 * Per-caller limits shared by two replicas through one real redis-server (the RedisTaskStore's):
 * a caller's calls in flight and calls per minute are counted across both, so the call that passes
 * the limit is refused at once on whichever replica it reaches, with the limit named; another
 * caller is not held back; a call that ended frees its place on both; and when Redis goes away,
 * calls go on (each replica counting alone), said once in the log.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { McpServer } from '../../lib/index.js';
import { ErrorCode } from '../../lib/protocol/error-codes.js';
import { RedisTaskStore } from '../../lib/tasks/redis-task-store.js';
import { InProcessClient, type Reply } from '../support/in-process-client.js';
import { type RedisUnderTest, redisMissing, startRedis } from '../support/redis-server.js';

const missing = redisMissing();

/** Waits until `done()` holds (the first counted call connects to Redis; the machine is loaded). */
async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

interface Replica {
  server: McpServer;
  logs: string[];
  client: InProcessClient;
}

describe('Per-caller limits across two replicas sharing Redis', { skip: missing }, () => {
  let redis: RedisUnderTest;
  let gateOpen: () => void = () => {};
  let gate = Promise.resolve();
  const closeGate = () => {
    gate = new Promise<void>((resolve) => {
      gateOpen = resolve;
    });
  };
  let ran = 0;
  let redisStopped = false;
  const replicas: Replica[] = [];

  const replica = async (): Promise<Replica> => {
    const logs: string[] = [];
    const server = new McpServer({
      name: 'replica',
      version: '1',
      logError: (message) => logs.push(message),
      // The tenant in _meta is the caller, on every replica alike.
      fairness: { key: ({ meta }) => (typeof meta?.tenant === 'string' ? meta.tenant : undefined) },
      limits: { perCaller: { callsInFlight: 2 } },
      tasks: { store: new RedisTaskStore({ url: redis.url, keyPrefix: `weft-test-${process.pid}:` }) },
    })
      .tool({
        name: 'wait_gate',
        description: 'Waits for the test',
        inputSchema: { type: 'object' },
        handler: async () => {
          ran++;
          await gate;
          return 'done';
        },
      })
      .tool({
        name: 'rated',
        description: 'Two calls a minute per caller',
        inputSchema: { type: 'object' },
        limits: { perCaller: { callsPerMinute: 2 } },
        handler: () => 'ok',
      });
    const client = new InProcessClient(server);
    await client.initialize();
    const made = { server, logs, client };
    replicas.push(made);
    return made;
  };
  const call = (r: Replica, tool: string, tenant: string): Promise<Reply> =>
    r.client.callTool(tool, {}, { _meta: { tenant } });
  const limitOf = (reply: Reply) =>
    (reply.error as { data?: { limit: string; max: number } } | undefined)?.data;

  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    gateOpen();
    await Promise.all(replicas.map((r) => r.server.close()));
    if (!redisStopped) await redis?.stop();
  });

  it('counts a caller’s calls in flight across both replicas, refusing the one past the limit at once', async () => {
    const one = await replica();
    const two = await replica();
    closeGate();
    const first = call(one, 'wait_gate', 'acme');
    const second = call(two, 'wait_gate', 'acme');
    await until(() => ran === 2, 'both calls run');
    for (const r of [one, two]) {
      const started = Date.now();
      const refused = await call(r, 'wait_gate', 'acme');
      assert.ok(Date.now() - started < 1_000, 'answered at once');
      assert.equal(refused.error?.code, ErrorCode.LimitExceeded);
      assert.equal(limitOf(refused)?.limit, 'callsInFlight');
      assert.equal(limitOf(refused)?.max, 2);
    }
    assert.equal(ran, 2, 'no refused call ran');
    // Another caller is not held back.
    const other = call(two, 'wait_gate', 'globex');
    await until(() => ran === 3, "the other caller's call runs");
    gateOpen();
    assert.equal((await first).result?.content?.[0]?.text, 'done');
    await second;
    await other;
    // Their places are free again, on both replicas.
    closeGate();
    const again = [call(two, 'wait_gate', 'acme'), call(one, 'wait_gate', 'acme')];
    await until(() => ran === 5, 'both run again');
    gateOpen();
    for (const reply of await Promise.all(again)) assert.equal(reply.result?.content?.[0]?.text, 'done');
  });

  it('counts calls per minute across both replicas', async () => {
    const [one, two] = replicas as [Replica, Replica];
    assert.equal((await call(one, 'rated', 'initech')).result?.content?.[0]?.text, 'ok');
    assert.equal((await call(two, 'rated', 'initech')).result?.content?.[0]?.text, 'ok');
    const refused = await call(one, 'rated', 'initech');
    assert.equal(refused.error?.code, ErrorCode.LimitExceeded);
    assert.equal(limitOf(refused)?.limit, 'callsPerMinute');
    const retryAfterMs = (refused.error as { data?: { retryAfterMs: number } }).data!.retryAfterMs;
    assert.ok(retryAfterMs > 20_000 && retryAfterMs <= 30_000, String(retryAfterMs));
    assert.match(refused.error!.message, /tool "rated"'s limits\.perCaller\.callsPerMinute/);
  });

  it('keeps answering when Redis goes away, counting on each replica alone, said once', async () => {
    const [one] = replicas as [Replica, Replica];
    await redis.stop();
    redisStopped = true;
    const replies = [];
    for (let i = 0; i < 3; i++) replies.push(await call(one, 'rated', 'umbrella'));
    assert.equal(replies[0]!.result?.content?.[0]?.text, 'ok');
    assert.equal(replies[1]!.result?.content?.[0]?.text, 'ok');
    // The limit still holds, on this replica's own count.
    assert.equal(limitOf(replies[2]!)?.limit, 'callsPerMinute');
    const said = one.logs.filter((line) => /limits: the shared Redis .* cannot be reached/.test(line));
    assert.equal(said.length, 1, one.logs.join('\n'));
  });
});
