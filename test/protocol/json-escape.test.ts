/**
 * The WebAssembly escaper against JSON.stringify as its oracle: for any well-formed string (ASCII,
 * control characters, quotes and backslashes, multi-byte UTF-8, surrogate pairs, and the edges of
 * its 16-byte blocks and 16 Ki-character chunks) its parts joined are JSON.stringify's text between
 * the quotes; a lone surrogate is refused. And the module shipped is the .wat assembled.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { escapedJson } from '../../lib/protocol/json-escape.js';
import { JSON_ESCAPE_MODULE_BASE64 } from '../../lib/protocol/json-escape-module.js';

const expected = (text: string) => JSON.stringify(text).slice(1, -1);
const escaped = (text: string) => {
  const parts = escapedJson(text);
  assert.ok(parts !== undefined, 'a well-formed string is escaped');
  return parts.join('');
};

/** Characters the escaper treats apart, and their neighbours. */
const interesting = fc.constantFrom(
  '"',
  '\\',
  '\n',
  '\r',
  '\t',
  '\b',
  '\f',
  '\u0000',
  '\u0001',
  '\u000b',
  '\u001f',
  ' ',
  '!',
  '#',
  '[',
  ']',
  '\u007f',
  '\u0080',
  'é',
  '\u2028',
  '\uffff',
  '😀',
  'x',
);
const pieces = fc.array(fc.oneof(interesting, fc.string({ unit: 'binary', maxLength: 40 })), {
  maxLength: 200,
});

test('any well-formed string comes out as JSON.stringify writes it, encoded', () => {
  fc.assert(
    fc.property(pieces, (parts) => {
      const text = parts.join('');
      assert.equal(escaped(text), expected(text));
    }),
    { numRuns: 500 },
  );
});

test('every character below 0x80, at every position of a 16-byte block', () => {
  for (let code = 0; code < 0x80; code++) {
    for (let at = 0; at < 34; at++) {
      const text = `${'a'.repeat(at)}${String.fromCharCode(code)}${'b'.repeat(40 - at)}`;
      assert.equal(escaped(text), expected(text), `U+${code.toString(16)} at ${at}`);
    }
  }
});

test('long strings across chunks, a surrogate pair astride a chunk edge, and heavy escaping', () => {
  const chunk = 16 * 1024;
  const cases = [
    'a'.repeat(chunk * 3 + 7),
    `${'a'.repeat(chunk - 1)}😀${'b'.repeat(chunk)}`,
    `${'é'.repeat(chunk - 1)}😀${'€'.repeat(chunk + 5)}`,
    '\u0001'.repeat(chunk * 2 + 3),
    'Line: "quoted", a\ttab and a \\ backslash.\n'.repeat(5000),
    '😀'.repeat(chunk + 1),
  ];
  for (const text of cases) assert.equal(escaped(text), expected(text), `${text.length} chars`);
  fc.assert(
    fc.property(fc.integer({ min: chunk - 40, max: chunk + 40 }), interesting, (length, char) => {
      const text = `${'w'.repeat(length)}${char}${'z'.repeat(30)}`;
      assert.equal(escaped(text), expected(text));
    }),
    { numRuns: 120 },
  );
});

test('a lone surrogate is refused (JSON.stringify writes it as \\udxxx, which UTF-8 cannot carry)', () => {
  for (const text of ['\ud800', `${'a'.repeat(20)}\udc00`, `${'a'.repeat(16 * 1024 - 1)}\ud83d`, '😀\ud83d'])
    assert.equal(escapedJson(text), undefined);
  assert.deepEqual(escapedJson(''), []);
});

test('the module shipped is json-escape.wat as assembled now', async () => {
  const script = new URL('../../../scripts/build-json-escape.mjs', import.meta.url).href;
  const { assembledBase64 } = (await import(script)) as { assembledBase64: () => Promise<string> };
  assert.equal(
    JSON_ESCAPE_MODULE_BASE64,
    await assembledBase64(),
    'json-escape-module.ts is stale: run node scripts/build-json-escape.mjs',
  );
});
