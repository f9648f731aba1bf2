/**
 * utf8Text: the text of a message's bytes is what Node's UTF-8 decoder makes of them, whichever way
 * it is read (a large ASCII message by the Latin-1 copy, anything else by the decoder).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { utf8Text } from '../../lib/transports/utf8-text.js';

const KIB = 1024;

function bytesOf(size: number, tail: number[]): Buffer {
  const bytes = Buffer.alloc(size + tail.length, 'abc"\\ {}[]:,0123456789xyz');
  bytes.set(tail, size);
  return bytes;
}

describe('utf8Text', () => {
  for (const size of [0, 100, 256 * KIB - 1, 256 * KIB, 3 * 1024 * KIB]) {
    it(`reads ${size} ASCII bytes as the UTF-8 decoder does`, () => {
      const bytes = bytesOf(size, []);
      assert.equal(utf8Text(bytes), bytes.toString('utf8'));
    });
  }

  const tails: [string, number[]][] = [
    ['a two-byte character (é)', [0xc3, 0xa9]],
    ['a four-byte character (an emoji)', [0xf0, 0x9f, 0x98, 0x80]],
    ['a byte that is not UTF-8', [0xff]],
    ['a character cut short', [0xe2, 0x82]],
    ['a control byte above 0x7f alone', [0x80]],
  ];
  for (const [what, tail] of tails) {
    it(`reads a large message ending in ${what} as the UTF-8 decoder does`, () => {
      const bytes = bytesOf(512 * KIB, tail);
      const text = utf8Text(bytes);
      assert.equal(text, bytes.toString('utf8'));
      assert.notEqual(text, bytes.toString('latin1'), 'not read as Latin-1');
    });
  }
});
