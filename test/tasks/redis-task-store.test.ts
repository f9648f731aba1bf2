/**
 * The Redis task store keeps the same store contract as the in-memory one, with two instances over
 * one real redis-server (two replicas); and a replica that stops renewing its leases has its tasks
 * failed by another, with a message that says so.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RedisTaskStore } from '../../lib/tasks/redis-task-store.js';
import { type RedisUnderTest, redisMissing, startRedis } from '../support/redis-server.js';
import { record, storeContract } from './task-store-contract.js';

const missing = redisMissing();

describe('RedisTaskStore', { skip: missing }, () => {
  let redis: RedisUnderTest;
  const stores: RedisTaskStore[] = [];
  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await redis.stop();
  });

  const open = (leaseMs = 1_000) => {
    const store = new RedisTaskStore({ url: redis.url, leaseMs });
    stores.push(store);
    return store;
  };

  storeContract(() => ({ store: open(), second: open() }));

  it("fails a task once its replica's lease lapses, and not before", async () => {
    const dying = open(600);
    const survivor = open(600);
    await survivor.ready(); // a store sweeps once a server serves with it
    const task = record();
    await dying.create(task);
    dying.hold(task.taskId);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.equal((await survivor.get(task.taskId))?.status, 'working', 'a renewed lease keeps it working');
    // The replica "dies": it stops renewing (and never releases).
    await dying.close();
    const deadline = Date.now() + 3_000;
    let now = await survivor.get(task.taskId);
    while (now?.status === 'working' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      now = await survivor.get(task.taskId);
    }
    assert.equal(now?.status, 'failed');
    assert.match(now!.statusMessage!, /replica running this task stopped/);
    assert.equal(now!.error?.code, -32603);
  });

  it('refuses a URL that is not redis://', () => {
    assert.throws(() => new RedisTaskStore({ url: 'http://127.0.0.1:6379' }), /redis:\/\//);
  });
});

describe('RedisTaskStore without a Redis', () => {
  it('says which Redis it could not reach when the server starts', async () => {
    const store = new RedisTaskStore({ url: 'redis://127.0.0.1:1' });
    await assert.rejects(store.ready(), /cannot reach Redis at redis:\/\/127\.0\.0\.1:1/);
    await store.close();
  });
});
