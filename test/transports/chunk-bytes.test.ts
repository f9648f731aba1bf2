/**
 * A large answer's chunks as one Buffer: exactly the UTF-8 bytes of the chunks written in order
 * (then the tail), for ASCII, multi-byte characters and surrogate pairs that fall on chunk edges.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { charsIn, chunksAsBytes } from '../../lib/transports/chunk-bytes.js';

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
