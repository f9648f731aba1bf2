/**
 * Item 8 of the hardening issue: `requestStateKey` must be at least 32 bytes of random key material
 * (a Buffer, or base64 or hex text that decodes to 32 bytes); a passphrase or a short key is refused
 * when the server is built, with the way to make a good one. A weak key used to be accepted (16
 * bytes of any text, hashed once with SHA-256), so one sealed state let a client brute-force it.
 */
import assert from 'node:assert/strict';
import { createCipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { McpServer } from '../../lib/index.js';
import { RequestStateSeal } from '../../lib/router/request-state.js';

const build = (requestStateKey: string | Uint8Array) =>
  new McpServer({ name: 'state-key', version: '1', requestStateKey });

const round = { method: 'tools/call', target: 't', digest: 'd', answers: {}, asked: [], chain: 'c' };
const origin = { method: 'tools/call', target: 't', digest: 'd' };

describe('security: requestStateKey is random key material of 32 bytes or more', () => {
  const weak: [string, string | Uint8Array][] = [
    ['a 16-byte passphrase', 'sixteen-bytes-ok'],
    ['a long passphrase with spaces', 'correct horse battery staple, the same on every replica'],
    ['31 bytes as base64', randomBytes(31).toString('base64')],
    ['31 bytes as hex', randomBytes(31).toString('hex')],
    ['a 31-byte Buffer', randomBytes(31)],
  ];
  for (const [what, key] of weak) {
    it(`${what} is refused at construction, saying how to make a key`, () => {
      assert.throws(() => build(key), /requestStateKey.*openssl rand -base64 32/s);
    });
  }

  const strong: [string, string | Uint8Array][] = [
    ['32 bytes as base64 (openssl rand -base64 32)', randomBytes(32).toString('base64')],
    ['32 bytes as base64url', randomBytes(32).toString('base64url')],
    ['32 bytes as hex (openssl rand -hex 32)', randomBytes(32).toString('hex')],
    ['a 32-byte Buffer', randomBytes(32)],
    ['a 64-byte Uint8Array', new Uint8Array(randomBytes(64))],
  ];
  for (const [what, key] of strong) {
    it(`${what} is accepted, and two seals with it agree`, () => {
      build(key);
      const token = new RequestStateSeal({ key }).seal(round);
      assert.deepEqual(new RequestStateSeal({ key }).open(token, origin), round);
    });
  }

  it('the sealing key is derived with HKDF, not the key material or its SHA-256', () => {
    const material = randomBytes(32);
    const token = new RequestStateSeal({ key: material }).seal(round);
    // A state sealed (in the seal's own format) under the raw material or its hash must not open.
    for (const wrong of [material, createHash('sha256').update(material).digest()]) {
      const forged = forge(token, wrong);
      assert.throws(() => new RequestStateSeal({ key: material }).open(forged, origin), /requestState/);
    }
    // ...while the same forgery under the HKDF subkey opens: the derivation is the one documented.
    const subkey = Buffer.from(hkdfSync('sha256', material, 'weft', 'weft requestState v1 aes-256-gcm', 32));
    assert.deepEqual(new RequestStateSeal({ key: material }).open(forge(token, subkey), origin), round);
  });
});

/** A token in the seal's wire format (version.base64url(iv | tag | ciphertext)) of a fresh state under `key`. */
function forge(sample: string, key: Buffer): string {
  const version = sample.slice(0, sample.indexOf('.'));
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from('weft requestState v1'));
  const body = Buffer.concat([
    cipher.update(JSON.stringify({ ...round, expiresAt: Date.now() + 60_000 })),
    cipher.final(),
  ]);
  return `${version}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
}
