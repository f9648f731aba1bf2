/**
 * Transformed blocking tools placed on the fleet: a replica (an McpServer with a fleet) and a
 * `weft worker` (a FleetWorker in this process, from the module that defines the tools) share a
 * real redis-server. The renamed tool's arguments reach the worker in the original's names; a
 * custom handler runs on the replica and its forward runs the original on the worker; the
 * deadline still stops a runaway there.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { connect, type McpClient } from '../../lib/client/index.js';
import { FleetWorker } from '../../lib/fleet/fleet-worker.js';
import { loadWorkerTools } from '../../lib/fleet/worker-tools.js';
import { McpServer } from '../../lib/index.js';
import { type RedisUnderTest, redisMissing, startRedis } from '../support/redis-server.js';
import { burn, spinThenReport } from './fleet-transformed-module.js';

const skip = redisMissing();
const text = (result: Record<string, unknown>) =>
  (result.content as { text?: string }[]).map((block) => block.text).join('|');

describe('transformed tools on the fleet', { skip }, () => {
  let redis: RedisUnderTest;
  let worker: FleetWorker;
  let replica: McpServer;
  let client: McpClient;
  before(async () => {
    redis = await startRedis();
    const queue = 'weft-transformed';
    const tools = await loadWorkerTools(
      fileURLToPath(new URL('./fleet-transformed-module.js', import.meta.url)),
    );
    worker = new FleetWorker(tools, { redis: redis.url, queue, threads: 1, lockMs: 1_500 });
    await worker.start();
    replica = new McpServer({
      name: 'replica',
      version: '0.0.0',
      timeoutMs: 2_000,
      fleet: { redis: redis.url, queue, checkIntervalMs: 250 },
    });
    replica.tool(burn as never).tool(spinThenReport as never);
    await replica.listen({ http: { port: 0, host: '127.0.0.1' } });
    client = await connect(`http://127.0.0.1:${replica.addresses.http?.port}/mcp`, { protocol: 'modern' });
  });
  after(async () => {
    await client?.close();
    await replica?.close();
    await worker?.close(1_000);
    await redis?.stop();
  });

  test("a renamed tool's arguments reach the worker in the original's names", async () => {
    const result = await client.callTool('burn', { duration: 5 });
    assert.match(text(result), /^spun 5 ms on \d+/);
    assert.equal(worker.runningCount, 0);
  });

  test("a custom handler's forward runs the original on the worker", async () => {
    const result = await client.callTool('spin_then_report', { ms: 3 });
    assert.match(text(result), /^report: spun 3 ms on \d+/);
  });

  test('the deadline stops a runaway on the worker', async () => {
    const started = Date.now();
    const result = await client.callTool('burn', { duration: 60_000 });
    assert.equal(result.isError, true);
    assert.match(text(result), /timed out/);
    while (worker.runningCount > 0) {
      assert.ok(Date.now() - started < 15_000, 'the worker let go of the job long before it would finish');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.match(text(await client.callTool('burn', { duration: 1 })), /^spun 1 ms/, 'the worker serves on');
  });
});
