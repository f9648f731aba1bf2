/**
 * A large answer's chunks as one Buffer: exactly the UTF-8 bytes of the chunks written in order
 * (then the tail), for ASCII, multi-byte characters and surrogate pairs that fall on chunk edges.
 * An answer with chunks that are bytes already leaves as parts, those bytes never copied.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  answerPayload,
  ByteParts,
  charsIn,
  chunksAsBytes,
  wholePayload,
  writePayload,
} from '../../lib/transports/chunk-bytes.js';

test('the Buffer holds the chunks bytes in order, then the tail', () => {
  fc.assert(
    fc.property(
      fc.array(fc.string({ unit: 'grapheme', maxLength: 30 }), { maxLength: 6 }),
      fc.constantFrom('', '\n', '\n\n'),
      (chunks, tail) => {
        const bytes = chunksAsBytes(chunks, tail);
        assert.deepEqual(bytes, Buffer.from(chunks.join('') + tail, 'utf8'));
        assert.equal(charsIn(chunks), chunks.join('').length);
      },
    ),
    { numRuns: 500 },
  );
  const large = ['{"a":"', 'é'.repeat(70_000), '😀'.repeat(40_000), '"}'];
  assert.deepEqual(chunksAsBytes(large, '\n'), Buffer.from(`${large.join('')}\n`, 'utf8'));
});

test('chunks that are bytes leave as parts: the same bytes, in order, never copied', async () => {
  const moved = Buffer.from(`${'é'.repeat(40_000)}\\n`, 'utf8');
  const other = Buffer.from('second', 'utf8');
  const chunks = ['{"content":[{"text":"', moved, '"},{"text":"', other, '"}]}'];
  const payload = answerPayload(chunks, '\n\n');
  assert.ok(payload instanceof ByteParts);
  assert.ok(payload.parts.includes(moved) && payload.parts.includes(other), 'the byte chunks themselves');
  const expected = Buffer.concat([
    Buffer.from('{"content":[{"text":"'),
    moved,
    Buffer.from('"},{"text":"'),
    other,
    Buffer.from('"}]}\n\n'),
  ]);
  assert.equal(payload.length, expected.length);
  assert.deepEqual(wholePayload(payload), expected);

  const out = new PassThrough();
  const written: Buffer[] = [];
  out.on('data', (chunk: Buffer) => written.push(chunk));
  writePayload(out, payload);
  out.end();
  await new Promise((resolve) => out.once('end', resolve));
  assert.deepEqual(Buffer.concat(written), expected);
  // Without byte chunks, nothing changes: a small answer is a string, a large one one Buffer.
  assert.equal(answerPayload(['{"a":', '1}']), '{"a":1}');
  assert.ok(Buffer.isBuffer(answerPayload(['x'.repeat(70_000)])));
});
