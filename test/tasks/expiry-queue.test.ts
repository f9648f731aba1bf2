/**
 * The memory task store's expiry order (lib/tasks/expiry-queue.ts): ids come out soonest first and
 * only once their time has passed, and the queue tells when leftovers of gone records outnumber
 * the live ones, so that a flood that keeps evicting cannot grow it past the store's own bound.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ExpiryQueue } from '../../lib/tasks/expiry-queue.js';

describe('ExpiryQueue', () => {
  it('hands out ids whose time has passed, soonest first, each once', () => {
    const queue = new ExpiryQueue();
    const times = Array.from({ length: 500 }, (_, i) => ({ id: `t${i}`, at: (i * 7919) % 1000 }));
    for (const { id, at } of times) queue.push(id, at);
    assert.deepEqual([...queue.due(-1)], [], 'nothing before its time');
    const firstHalf = [...queue.due(499)];
    const expected = times.filter(({ at }) => at <= 499).sort((a, b) => a.at - b.at);
    assert.deepEqual(
      firstHalf.map((id) => times.find((time) => time.id === id)!.at),
      expected.map(({ at }) => at),
    );
    assert.equal(queue.size, 500 - firstHalf.length);
    assert.equal([...queue.due(10_000)].length, 500 - firstHalf.length);
    assert.equal(queue.size, 0);
  });

  it('asks for compaction past twice the live records, and rebuilds from them', () => {
    const queue = new ExpiryQueue();
    for (let i = 0; i < 200; i++) queue.push(`t${i}`, 1_000 + i);
    assert.equal(queue.needsCompaction(100), false, '200 entries for 100 records is within twice');
    assert.equal(queue.needsCompaction(10), true);
    queue.rebuild([
      ['kept-b', 20],
      ['kept-a', 10],
    ]);
    assert.equal(queue.size, 2);
    assert.deepEqual([...queue.due(100)], ['kept-a', 'kept-b']);
  });
});
