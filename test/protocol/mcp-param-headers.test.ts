/**
 * Header values for `Mcp-Name` and `Mcp-Param-*`: the Base64 sentinel decoded strictly, literal
 * values kept literal, whitespace around a value ignored, and typed comparison with the body.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decodeHeaderValue,
  encodeHeaderValue,
  headerMatchesValue,
} from '../../lib/protocol/mcp-param-headers.js';

const decoded = (raw: string) => {
  const result = decodeHeaderValue(raw);
  assert.ok(result.ok, `expected ${JSON.stringify(raw)} to decode`);
  return result.value;
};
const undecodable = (raw: string) => assert.equal(decodeHeaderValue(raw).ok, false, raw);

describe('Mcp-Param / Mcp-Name header values', () => {
  it('decodes the spec examples', () => {
    assert.equal(decoded('=?base64?SGVsbG8sIOS4lueVjA==?='), 'Hello, 世界');
    assert.equal(decoded('=?base64?IHBhZGRlZCA=?='), ' padded ');
    assert.equal(decoded('=?base64?bGluZTEKbGluZTI=?='), 'line1\nline2');
    assert.equal(decoded('=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='), '=?base64?literal?=');
    assert.equal(decoded('=?base64??='), '');
  });

  it('refuses wrong padding, characters outside the alphabet, non-canonical bits and bad UTF-8', () => {
    undecodable('=?base64?SGVsbG8?=');
    undecodable('=?base64?SGVs!!!bG8=?=');
    undecodable('=?base64?SGVsbG8=x?=');
    undecodable('=?base64?SGVsbG9=?=');
    undecodable('=?base64?/w==?=');
    undecodable('=?base64?SGVs bG8=?=');
  });

  it('treats a value without both exact markers as literal', () => {
    assert.equal(decoded('SGVsbG8='), 'SGVsbG8=');
    assert.equal(decoded('=?base64?SGVsbG8='), '=?base64?SGVsbG8=');
    assert.equal(decoded('SGVsbG8=?='), 'SGVsbG8=?=');
    assert.equal(decoded('=?BASE64?SGVsbG8=?='), '=?BASE64?SGVsbG8=?=');
  });

  it('ignores whitespace around a value, keeps it inside', () => {
    assert.equal(decoded('  us-west1 \t'), 'us-west1');
    assert.equal(decoded('a b\tc'), 'a b\tc');
    assert.equal(decoded(' =?base64?SGVsbG8=?= '), 'Hello');
  });

  it('refuses a literal value with characters outside visible ASCII', () => {
    undecodable('caf\u00e9');
    undecodable('a\u0000b');
    undecodable('\u007f');
  });

  it('encodes what needs it, and round-trips', () => {
    assert.equal(encodeHeaderValue('us-west1'), 'us-west1');
    assert.equal(encodeHeaderValue('Hello, 世界'), '=?base64?SGVsbG8sIOS4lueVjA==?=');
    assert.equal(encodeHeaderValue(' padded '), '=?base64?IHBhZGRlZCA=?=');
    assert.equal(encodeHeaderValue('=?base64?literal?='), '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=');
    for (const value of ['', 'x', 'Hello, 世界', ' padded ', 'line1\nline2', '=?base64?x?=', 'tab\there']) {
      assert.equal(decoded(encodeHeaderValue(value)), value);
    }
  });

  it('compares integers as numbers, booleans as true/false, strings exactly', () => {
    assert.ok(headerMatchesValue('42', 42, 'integer'));
    assert.ok(headerMatchesValue('42.0', 42, 'integer'));
    assert.ok(headerMatchesValue('-7', -7, 'integer'));
    assert.ok(!headerMatchesValue('42', 43, 'integer'));
    assert.ok(!headerMatchesValue('0x2a', 42, 'integer'));
    assert.ok(!headerMatchesValue('', 0, 'integer'));
    assert.ok(!headerMatchesValue('42', '42', 'integer'));
    assert.ok(headerMatchesValue('true', true, 'boolean'));
    assert.ok(headerMatchesValue('false', false, 'boolean'));
    assert.ok(!headerMatchesValue('True', true, 'boolean'));
    assert.ok(!headerMatchesValue('1', true, 'boolean'));
    assert.ok(headerMatchesValue('Seattle', 'Seattle', 'string'));
    assert.ok(!headerMatchesValue('seattle', 'Seattle', 'string'));
  });
});
