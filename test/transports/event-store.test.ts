/**
 * The event store behind Last-Event-ID: replay after an id, per stream, and its bound.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventStore, ReplayBudget, type StoredEvent } from '../../lib/transports/event-store.js';

const note = (n: number) =>
  JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { data: n } });
const numbers = (events: StoredEvent[]) => events.map((event) => JSON.parse(String(event.frame)).params.data);
const MiB = 1024 * 1024;

describe('EventStore', () => {
  it('replays what a stream carried after a given event, and nothing of other streams', () => {
    const store = new EventStore(100, MiB);
    const a = store.openStream();
    const b = store.openStream();
    const first = store.append(a, note(1));
    store.append(b, note(99));
    store.append(a, note(2));
    store.append(a, note(3));
    assert.deepEqual(numbers(store.after(first)!.events), [2, 3]);
    assert.equal(store.after(first)!.streamId, a);
    assert.deepEqual(numbers(store.after(`${a}_0`)!.events), [1, 2, 3]);
    assert.equal(store.after('unknown_1'), undefined);
    assert.equal(store.after('garbage'), undefined);
  });

  it('primes a reader with the latest id, so a fresh reader replays nothing old', () => {
    const store = new EventStore(100, MiB);
    const stream = store.openStream('standalone');
    store.append(stream, note(1));
    const primed = store.primingId(stream);
    store.append(stream, note(2));
    assert.deepEqual(numbers(store.after(primed)!.events), [2]);
  });

  it('forgets the oldest events first once past its bound', () => {
    const store = new EventStore(3, MiB);
    const stream = store.openStream();
    for (let n = 1; n <= 5; n++) store.append(stream, note(n));
    assert.deepEqual(numbers(store.after(`${stream}_0`)!.events), [3, 4, 5]);
  });

  it('forgets the oldest events once their bytes pass the byte bound', () => {
    const store = new EventStore(100, 3 * note(1).length);
    const stream = store.openStream();
    for (let n = 1; n <= 6; n++) store.append(stream, note(n));
    assert.deepEqual(numbers(store.after(`${stream}_0`)!.events), [4, 5, 6]);
  });

  it('keeps a finished stream replayable until its events are evicted', () => {
    const store = new EventStore(2, MiB);
    const done = store.openStream();
    store.append(done, note(1));
    store.finish(done);
    assert.equal(store.isFinished(done), true);
    assert.deepEqual(numbers(store.after(`${done}_0`)!.events), [1]);
    const other = store.openStream();
    store.append(other, note(2));
    store.append(other, note(3));
    assert.equal(store.after(`${done}_0`), undefined, 'evicted and forgotten');
  });

  it('holds a budget entry only while its store holds the event (cleared, evicted, or over the budget)', () => {
    const budget = new ReplayBudget(10 * note(10).length);
    const ended = new EventStore(100, MiB, budget);
    const stream = ended.openStream();
    for (let n = 1; n <= 5; n++) ended.append(stream, note(n));
    assert.equal(budget.entries, 5);
    ended.clear();
    assert.deepEqual([budget.entries, budget.bytes], [0, 0], 'an ended session leaves nothing in the budget');

    const small = new EventStore(2, MiB, budget);
    const kept = small.openStream();
    for (let n = 1; n <= 5; n++) small.append(kept, note(n));
    assert.equal(budget.entries, 2, 'events evicted by their own store leave the budget too');

    const big = new EventStore(100, MiB, budget);
    const flood = big.openStream();
    for (let n = 10; n <= 21; n++) big.append(flood, note(n));
    assert.equal(budget.entries, 10, 'past the budget the oldest anywhere go first');
    assert.equal(small.after(`${kept}_0`)!.events.length, 0, "the small store's events were the oldest");
    assert.deepEqual(numbers(big.after(`${flood}_0`)!.events), [12, 13, 14, 15, 16, 17, 18, 19, 20, 21]);
  });

  it('forgets a finished stream its reader took whole, leaving the other streams, the bounds and the budget as they were', () => {
    const budget = new ReplayBudget(MiB);
    const store = new EventStore(3, MiB, budget);
    const delivered = store.openStream();
    const open = store.openStream();
    store.append(delivered, note(1));
    store.append(open, note(2));
    store.append(delivered, note(3));
    store.forget(delivered);
    assert.deepEqual(numbers(store.after(`${delivered}_0`)!.events), [1, 3], 'an unfinished stream is kept');
    store.finish(delivered);
    store.forget(delivered);
    assert.equal(store.after(`${delivered}_0`), undefined, 'the finished stream is forgotten');
    assert.deepEqual([budget.entries, budget.bytes], [1, note(2).length], 'its events left the budget');
    store.append(open, note(4));
    store.append(open, note(5));
    assert.deepEqual(
      numbers(store.after(`${open}_0`)!.events),
      [2, 4, 5],
      'its events no longer count to the bound',
    );
  });

  it('keeps a large event as the bytes it was given, and bounds it by its bytes', () => {
    const store = new EventStore(10, 1500);
    const stream = store.openStream();
    const frameOf = (id: string) => Buffer.from(`id: ${id}\ndata: ${'é'.repeat(700)}\n\n`);
    const first = frameOf(store.nextId(stream));
    assert.equal(store.append(stream, first), `${stream}_1`);
    assert.equal(store.after(`${stream}_0`)!.events[0]!.frame, first, 'the same Buffer, not a copy');
    store.append(stream, frameOf(store.nextId(stream)));
    assert.deepEqual(
      store.after(`${stream}_0`)!.events.map((event) => event.id),
      [`${stream}_2`],
      '1,400 characters but 2,800 bytes: over the bound, the older one goes',
    );
  });
});
