/**
 * Large answers' memory is reused once the socket has taken their bytes, and never before: the
 * set's own rules (sizes kept, bounds, what it takes back and when: the last holder, a write's
 * callback, a replay store letting go). Real servers answering into reused memory on every
 * transport: answer-buffers-wire.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AnswerBuffers } from '../../lib/transports/answer-buffers.js';
import { writePayload } from '../../lib/transports/chunk-bytes.js';
import { EventStore } from '../../lib/transports/event-store.js';

const KIB = 1024;

describe('answer buffers', () => {
  it('lends exactly the size asked and reuses memory given back, by capacity', () => {
    const buffers = new AnswerBuffers();
    const first = buffers.take(100 * KIB);
    assert.equal(first.length, 100 * KIB);
    assert.equal(first.buffer.byteLength, 128 * KIB, 'capacities are powers of two');
    assert.ok(buffers.lent(first));
    buffers.release(first);
    assert.equal(buffers.keptBytes, 128 * KIB);
    const second = buffers.take(90 * KIB);
    assert.equal(second.buffer, first.buffer, 'the same memory, reused');
    assert.equal(second.length, 90 * KIB);
    assert.equal(buffers.keptBytes, 0);
    const other = buffers.take(300 * KIB);
    assert.notEqual(other.buffer, first.buffer, 'another capacity, other memory');
  });

  it('keeps nothing outside 64 KiB to 1 MiB, and no more than four of a capacity', () => {
    const buffers = new AnswerBuffers();
    const small = buffers.take(10 * KIB);
    const large = buffers.take(2048 * KIB);
    assert.ok(!buffers.lent(small) && !buffers.lent(large));
    buffers.release(small);
    buffers.release(large);
    assert.equal(buffers.keptBytes, 0);
    const many = Array.from({ length: 6 }, () => buffers.take(200 * KIB));
    for (const buffer of many) buffers.release(buffer);
    assert.equal(buffers.keptBytes, 4 * 256 * KIB);
  });

  it('takes memory back only when its last holder lets go', () => {
    const buffers = new AnswerBuffers();
    const frame = buffers.take(100 * KIB);
    buffers.hold(frame); // a store keeps it
    buffers.hold(frame); // a write sends it
    buffers.release(frame); // its maker handed it on
    buffers.release(frame); // the write is done
    assert.ok(buffers.lent(frame), 'the store still holds it');
    assert.equal(buffers.keptBytes, 0);
    assert.notEqual(buffers.take(100 * KIB).buffer, frame.buffer, 'held memory is not lent again');
    buffers.release(frame); // the store forgets it
    assert.ok(!buffers.lent(frame));
    assert.equal(buffers.keptBytes, 128 * KIB);
    buffers.hold('text');
    buffers.release(Buffer.alloc(100 * KIB));
    assert.equal(buffers.keptBytes, 128 * KIB, 'strings and strangers are ignored');
  });

  it('lets a write hold a Buffer until its callback says the bytes were taken', () => {
    const buffers = new AnswerBuffers();
    const payload = buffers.take(200 * KIB);
    const pending: ((error?: Error | null) => void)[] = [];
    const sink = {
      write: (_chunk: string | Buffer, callback?: (error?: Error | null) => void) => {
        if (callback) pending.push(callback);
        return true;
      },
      cork() {},
      uncork() {},
    };
    writePayload(sink, payload, buffers);
    writePayload(sink, payload, buffers);
    buffers.release(payload);
    assert.equal(pending.length, 2);
    pending[0]!();
    assert.ok(buffers.lent(payload), 'one write still sends it');
    pending[1]!(new Error('broken pipe'));
    assert.ok(buffers.lent(payload), 'a failed write never gives its memory back');
    assert.equal(buffers.keptBytes, 0);
  });

  it('is held by an event store while it keeps the frame for a replay', () => {
    const buffers = new AnswerBuffers();
    const store = new EventStore(100, 16 * 1024 * KIB, undefined, buffers);
    const stream = store.openStream();
    const first = buffers.take(100 * KIB);
    store.append(stream, first);
    buffers.release(first);
    assert.ok(buffers.lent(first), 'kept for a replay');
    assert.equal(store.after(`${stream}_0`)?.events[0]?.frame, first);
    store.finish(stream);
    store.forget(stream);
    assert.ok(!buffers.lent(first), 'forgotten, so back');
    assert.equal(buffers.keptBytes, 128 * KIB);
    const small = new EventStore(1, 16 * 1024 * KIB, undefined, buffers);
    const other = small.openStream();
    const evicted = buffers.take(100 * KIB);
    small.append(other, evicted);
    small.append(other, 'a later small event');
    buffers.release(evicted);
    assert.ok(!buffers.lent(evicted), 'pushed out by the bound, so back');
    const cleared = buffers.take(300 * KIB);
    small.append(other, cleared);
    buffers.release(cleared);
    small.clear();
    assert.ok(!buffers.lent(cleared), 'its session ended, so back');
  });

  it('ignores a Buffer it did not lend, one given back twice, and any once closed', () => {
    const buffers = new AnswerBuffers();
    buffers.release(Buffer.alloc(128 * KIB));
    assert.equal(buffers.keptBytes, 0, 'a stranger');
    const lent = buffers.take(128 * KIB);
    buffers.release(lent);
    buffers.release(lent);
    assert.equal(buffers.keptBytes, 128 * KIB, 'given back once');
    const again = buffers.take(128 * KIB);
    buffers.close();
    assert.equal(buffers.keptBytes, 0);
    buffers.release(again);
    assert.equal(buffers.keptBytes, 0, 'closed: nothing kept');
  });
});
