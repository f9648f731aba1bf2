/**
 * Large answers' memory is reused once the socket has taken their bytes, and never before: the
 * set's own rules (sizes kept, bounds, what it takes back), then a real stdio server over a pipe
 * answering many distinct answers of 64 KiB to 1 MiB at once to a reader that pauses, each of
 * which must arrive exactly as its tool wrote it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AnswerBuffers } from '../../lib/transports/answer-buffers.js';
import { numberedText } from './numbered-answers-server.js';

const KIB = 1024;
const SERVER = fileURLToPath(new URL('./numbered-answers-server.js', import.meta.url));

describe('answer buffers', () => {
  it('lends exactly the size asked and reuses memory given back, by capacity', () => {
    const buffers = new AnswerBuffers();
    const first = buffers.take(100 * KIB);
    assert.equal(first.length, 100 * KIB);
    assert.equal(first.buffer.byteLength, 128 * KIB, 'capacities are powers of two');
    assert.ok(buffers.lent(first));
    buffers.give(first);
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
    buffers.give(small);
    buffers.give(large);
    assert.equal(buffers.keptBytes, 0);
    const many = Array.from({ length: 6 }, () => buffers.take(200 * KIB));
    for (const buffer of many) buffers.give(buffer);
    assert.equal(buffers.keptBytes, 4 * 256 * KIB);
  });

  it('ignores a Buffer it did not lend, one given back twice, and any once closed', () => {
    const buffers = new AnswerBuffers();
    buffers.give(Buffer.alloc(128 * KIB));
    assert.equal(buffers.keptBytes, 0, 'a stranger');
    const lent = buffers.take(128 * KIB);
    buffers.give(lent);
    buffers.give(lent);
    assert.equal(buffers.keptBytes, 128 * KIB, 'given back once');
    const again = buffers.take(128 * KIB);
    buffers.close();
    assert.equal(buffers.keptBytes, 0);
    buffers.give(again);
    assert.equal(buffers.keptBytes, 0, 'closed: nothing kept');
  });
});

describe('stdio answers written into reused memory', () => {
  it('arrive each as its tool wrote it, 48 at once to a reader that pauses', {
    timeout: 60_000,
  }, async () => {
    const child = spawn(process.execPath, [SERVER, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      const sizes = [64, 100, 130, 250, 600, 1000];
      const calls = Array.from({ length: 48 }, (_, index) => ({
        id: index + 1,
        seed: 1000 + index,
        kib: sizes[index % sizes.length]!,
      }));
      const answers = new Map<number, string>();
      const done = new Promise<void>((resolve, reject) => {
        let pieces: Buffer[] = [];
        let seen = 0;
        child.stdout!.on('data', (chunk: Buffer) => {
          // A reader that stops now and then, so that answers queue in the pipe and in stdout.
          seen += chunk.length;
          if (seen > 2 * 1024 * KIB) {
            seen = 0;
            child.stdout!.pause();
            setTimeout(() => child.stdout!.resume(), 30);
          }
          let start = 0;
          for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
            pieces.push(chunk.subarray(start, end));
            const line = Buffer.concat(pieces).toString();
            pieces = [];
            let message: { id?: unknown; result?: { content?: { text?: string }[] } };
            try {
              message = JSON.parse(line);
            } catch {
              reject(new Error(`a line that is not JSON (an answer overwritten?): ${line.slice(0, 120)}`));
              return;
            }
            start = end + 1;
            if (typeof message.id === 'number' && message.id > 0)
              answers.set(message.id, message.result?.content?.[0]?.text ?? '');
            if (answers.size === calls.length) resolve();
          }
          pieces.push(chunk.subarray(start));
        });
        child.stdout!.once('end', () => reject(new Error(`stdout ended after ${answers.size} answers`)));
      });
      const send = (message: unknown) => child.stdin!.write(`${JSON.stringify(message)}\n`);
      send({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      for (const { id, seed, kib } of calls) {
        send({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'numbered', arguments: { seed, kib } },
        });
      }
      await done;
      for (const { id, seed, kib } of calls) {
        const text = answers.get(id);
        assert.equal(text?.length, kib * KIB, `answer ${id}: its length`);
        assert.ok(text === numberedText(seed, kib), `answer ${id} arrived as its tool wrote it`);
      }
    } finally {
      child.kill();
    }
  });
});
