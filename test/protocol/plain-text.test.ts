/**
 * The verbatim check of a long string against JSON.stringify itself, as an oracle: whenever
 * `isJsonVerbatim` says a text can go out as it is, JSON.stringify writes exactly that text between
 * quotes (and for ASCII texts, says so whenever it does), for short texts of any characters and for long ones (several base64 chunks) with one
 * character changed anywhere.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isJsonVerbatim, isPlainBase64 } from '../../lib/protocol/plain-text.js';

/** Verbatim implies stringify leaves it as it is; for ASCII texts, the converse holds too. */
const verbatimAgrees = (text: string) => {
  const unchanged = JSON.stringify(text) === `"${text}"`;
  const verbatim = isJsonVerbatim(text);
  const shown = JSON.stringify(text.slice(0, 40));
  if (verbatim) assert.ok(unchanged, `said verbatim, but JSON.stringify escapes ${shown}`);
  // ASCII only: a text beyond it is left to JSON.stringify, at no loss but a copy.
  if (Buffer.byteLength(text) === text.length) assert.equal(verbatim, unchanged, shown);
};

test('a short text is verbatim exactly when JSON.stringify leaves it as it is', () => {
  const characters = fc.oneof(
    fc.constantFrom('a', 'Z', '0', '+', '/', '=', ' ', '"', '\\', '\n', '\r', '\t', '\u0000', '\u001f'),
    fc.constantFrom('\u007f', 'é', '\u2028', '\ud800', '😀', '-', '_'),
  );
  fc.assert(
    fc.property(fc.array(characters, { maxLength: 24 }), (chars) => verbatimAgrees(chars.join(''))),
    { numRuns: 3000 },
  );
  fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 40 }), verbatimAgrees), { numRuns: 2000 });
});

test('a long text with one character changed anywhere: verbatim only when stringify agrees', () => {
  // Three 64 Ki-character base64 chunks and some: the change lands in any chunk, or on an edge.
  const bytes = Buffer.alloc(150_000);
  for (let index = 0; index < bytes.length; index++) bytes[index] = (index * 2654435761) >>> 24;
  const base = bytes.toString('base64');
  assert.equal(isPlainBase64(base), true);
  assert.equal(isJsonVerbatim(base), true);
  const replacement = fc.constantFrom(
    '"',
    '\\',
    '\n',
    '\u0001',
    '\u001f',
    ' ',
    '-',
    '_',
    'é',
    '\ud800',
    'A',
    '=',
    '~',
  );
  fc.assert(
    fc.property(fc.nat({ max: base.length - 1 }), replacement, (at, character) =>
      verbatimAgrees(`${base.slice(0, at)}${character}${base.slice(at + 1)}`),
    ),
    { numRuns: 400 },
  );
  // A long text that is not base64 (its length is not a multiple of four) takes the other road.
  verbatimAgrees(`${base}x`);
  verbatimAgrees(`${base}x\u0002`);
});
