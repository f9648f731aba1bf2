/**
 * The Redis task store counts each caller's tasks and all tasks in Redis, atomically (one Lua
 * script), so two replicas together keep the bound: the oldest finished records make room, and
 * a caller whose room is all running tasks is refused at creation with the limit and
 * `retryAfterMs`, from whichever replica it asks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ProtocolError } from '../../lib/protocol/protocol-error.js';
import { RedisTaskStore } from '../../lib/tasks/redis-task-store.js';
import { type RedisUnderTest, redisMissing, startRedis } from '../support/redis-server.js';
import { record } from '../tasks/task-store-contract.js';

describe('security: the Redis task store is bounded', { skip: redisMissing() }, () => {
  let redis: RedisUnderTest;
  const stores: RedisTaskStore[] = [];
  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await redis.stop();
  });
  const open = (keyPrefix: string) => {
    const store = new RedisTaskStore({ url: redis.url, keyPrefix, limits: { maxPerCaller: 3, maxTasks: 5 } });
    stores.push(store);
    return store;
  };

  it('refuses a fourth running task of one caller, on any replica; finished ones make room', async () => {
    const [one, two] = [open('bounds-a:'), open('bounds-a:')];
    const mine = () => record({ principal: 'issuer subject-1' });
    const held = [mine(), mine(), mine()];
    for (const [index, task] of held.entries()) await (index % 2 ? two : one).create(task);
    const refusal = await two.create(mine()).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(refusal instanceof ProtocolError, `refused: ${refusal}`);
    assert.equal(refusal.code, -32013);
    const data = refusal.data as { limit: string; max: number; retryAfterMs: number };
    assert.equal(data.limit, 'maxPerCaller');
    assert.equal(data.max, 3);
    assert.ok(data.retryAfterMs > 0 && data.retryAfterMs <= 60_000, String(data.retryAfterMs));
    await one.update(held[0]!.taskId, { status: 'completed', result: { content: [] } });
    const next = mine();
    await two.create(next);
    assert.equal(await one.get(held[0]!.taskId), undefined, 'the oldest finished record made room');
    assert.equal((await one.get(next.taskId))?.status, 'working');
  });

  it('keeps the total bound across callers, refusing with maxTasks when all are running', async () => {
    const store = open('bounds-b:');
    for (let i = 0; i < 5; i++) await store.create(record({ principal: `issuer subject-${i}` }));
    const refusal = await store.create(record({ principal: 'issuer someone-else' })).then(
      () => undefined,
      (error: unknown) => error as ProtocolError,
    );
    assert.equal((refusal?.data as { limit?: string } | undefined)?.limit, 'maxTasks');
  });
});
