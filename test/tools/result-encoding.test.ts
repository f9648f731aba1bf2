/**
 * A result's JSON text in pieces (long strings as they are, or escaped into bytes) against
 * JSON.stringify of the whole result, as an oracle: over random results whose blocks carry long
 * strings that need escaping or not, the pieces joined are exactly JSON.stringify's text; a long
 * verbatim string is a piece of its own, one that needs escaping comes escaped in parts, one with a lone
 * surrogate is stringified; and a result that hides the stand-ins (a `toJSON`) still comes out right.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { concatenated, type JsonPiece } from '../../lib/protocol/message-encoding.js';
import type { CallToolResult } from '../../lib/tools/content.js';
import { callToolResultProblem } from '../../lib/tools/result-check.js';
import { encodeToolResult } from '../../lib/tools/result-encoding.js';

const LONG = 70 * 1024;
const noise = Buffer.alloc(LONG * 0.75);
for (let index = 0; index < noise.length; index++) noise[index] = (index * 40503) >>> 8;
const longBase64 = noise.toString('base64');
const longText = (tail: string) => `${'w'.repeat(LONG)}${tail}`;
const longString = fc.oneof(
  fc.constant(longBase64),
  fc.constantFrom('', '"', '\\', '\n', 'é', '\u0003', ' plain', '\ud800', '😀\t').map(longText),
  fc.string({ maxLength: 6 }),
);

const block = fc.oneof(
  fc.record({ type: fc.constant('text'), text: longString }),
  fc.record({
    type: fc.constantFrom('image', 'audio'),
    data: longString,
    mimeType: fc.constant('image/png'),
  }),
  fc.record({
    type: fc.constant('resource'),
    resource: fc.oneof(
      fc.record({ uri: fc.constant('file:///a'), text: longString }),
      fc.record({ uri: fc.constant('file:///b'), blob: longString }),
    ),
  }),
);

const joined = (pieces: readonly JsonPiece[]) => concatenated(pieces);

test('the pieces joined are JSON.stringify of the result, whatever its long strings hold', () => {
  fc.assert(
    fc.property(
      fc.array(block, { maxLength: 4 }),
      fc.option(fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 })), {
        nil: undefined,
      }),
      (content, structuredContent) => {
        const result = { content, ...(structuredContent ? { structuredContent } : {}) } as CallToolResult;
        const json = encodeToolResult(result);
        assert.ok(json.ok);
        const expected = JSON.stringify(result);
        assert.equal(json.text, expected);
        if (json.pieces !== undefined) assert.equal(joined(json.pieces), expected);
      },
    ),
    { numRuns: 150 },
  );
});

test('a long string that needs no escaping is a piece of its own; one that does comes escaped', () => {
  const image = encodeToolResult({ content: [{ type: 'image', data: longBase64, mimeType: 'image/png' }] });
  assert.ok(image.ok && image.pieces !== undefined);
  assert.equal(image.pieces.length, 3);
  assert.equal(image.pieces[1], longBase64);
  assert.equal(image.pieces[0], '{"content":[{"type":"image","data":"');

  const lines = encodeToolResult({ content: [{ type: 'text', text: longText('\nmore') }] });
  assert.ok(lines.ok && lines.pieces !== undefined);
  assert.equal(lines.pieces[0], '{"content":[{"type":"text","text":"');
  assert.equal(lines.pieces.length, 2 + Math.ceil(longText('\nmore').length / (16 * 1024)));
  assert.equal(
    joined(lines.pieces),
    JSON.stringify({ content: [{ type: 'text', text: longText('\nmore') }] }),
  );

  const lone = encodeToolResult({ content: [{ type: 'text', text: longText('\udc00') }] });
  assert.ok(lone.ok);
  assert.equal(lone.pieces, undefined, 'a lone surrogate is left to JSON.stringify (\\udc00)');

  const short = encodeToolResult({ content: [{ type: 'text', text: 'hello' }] });
  assert.ok(short.ok);
  assert.equal(short.pieces, undefined);
});

test('a block whose toJSON hides the stand-in is encoded whole, as JSON.stringify would', () => {
  const sneaky = {
    type: 'text',
    text: longText(''),
    toJSON: () => ({ type: 'text', text: 'replaced' }),
  };
  const result = { content: [sneaky] } as unknown as CallToolResult;
  const json = encodeToolResult(result);
  assert.ok(json.ok);
  assert.equal(json.text, JSON.stringify(result));
  assert.equal(json.pieces, undefined);
});

test('a result that cannot be JSON says why, as before', () => {
  const json = encodeToolResult({
    content: [{ type: 'text', text: longText('') }],
    structuredContent: { n: 1n },
  } as unknown as CallToolResult);
  assert.equal(json.ok, false);
  assert.match((json as { problem: string }).problem, /BigInt/);
});

test('base64 the result check proved goes out as it is; the proof counts only for the string proved', () => {
  const image = { type: 'image', data: longBase64, mimeType: 'image/png' };
  const blob = { uri: 'file:///c', blob: longBase64 };
  const result = { content: [image, { type: 'resource', resource: blob }] };
  assert.equal(callToolResultProblem(result), undefined);
  const proved = encodeToolResult(result as CallToolResult);
  assert.ok(proved.ok && proved.pieces !== undefined);
  assert.equal(joined(proved.pieces), JSON.stringify(result));
  assert.ok(proved.pieces.includes(longBase64), 'a piece of its own');

  // Changed after the check: the new string is not the one proved, so it is looked at again.
  image.data = longText('"quoted"\n');
  blob.blob = longText('\\');
  const changed = encodeToolResult(result as CallToolResult);
  assert.ok(changed.ok);
  assert.equal(changed.text, JSON.stringify(result));

  // A getter that hands the check one string and the encoder another.
  let checked = false;
  const shifty = { type: 'image', mimeType: 'image/png' } as Record<string, unknown>;
  Object.defineProperty(shifty, 'data', {
    enumerable: true,
    get: () => (checked ? longText('"') : longBase64),
  });
  const shiftyResult = { content: [shifty] };
  assert.equal(callToolResultProblem(shiftyResult), undefined);
  checked = true;
  const encoded = encodeToolResult(shiftyResult as unknown as CallToolResult);
  assert.ok(encoded.ok);
  assert.equal(
    encoded.text,
    JSON.stringify({ content: [{ type: 'image', mimeType: 'image/png', data: longText('"') }] }),
  );
});
