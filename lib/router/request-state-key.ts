/**
 * The key material behind `requestStateKey`, and the keys derived from it per purpose.
 *
 * A state is sealed by the server and handed to the client, who may try keys against it offline as
 * long as it likes; its plaintext starts predictably. So the key must be random, not a passphrase:
 * at least 32 bytes, given as bytes (a Buffer) or as base64 or hex text that decodes to them (what
 * `openssl rand -base64 32` prints). Anything weaker is refused when the server is built. Each use of
 * the key gets its own subkey through HKDF-SHA-256 with the purpose as `info`, so a key shared by
 * several features never encrypts two kinds of data, and adding a purpose never weakens another.
 */
import { hkdfSync } from 'node:crypto';

export const MIN_KEY_BYTES = 32;

const HOW_TO_MAKE_ONE =
  'make one with `openssl rand -base64 32` (or crypto.randomBytes(32)) and give the same one to every replica';
const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$|^[A-Za-z0-9_-]+={0,2}$/;

/** The bytes of a `requestStateKey`; throws, saying how to make a good one, when it is too weak. */
export function keyMaterial(key: unknown, what = 'requestStateKey'): Buffer {
  let bytes: Buffer;
  if (key instanceof Uint8Array) {
    bytes = Buffer.from(key);
  } else if (typeof key === 'string') {
    const text = key.trim();
    if (HEX.test(text)) bytes = Buffer.from(text, 'hex');
    else if (BASE64.test(text))
      bytes = Buffer.from(text, text.includes('-') || text.includes('_') ? 'base64url' : 'base64');
    else {
      throw new TypeError(
        `${what} must be random key material, as base64 or hex text or a Buffer, not a passphrase; ${HOW_TO_MAKE_ONE}`,
      );
    }
  } else {
    throw new TypeError(`${what} must be a string (base64 or hex) or a Buffer; ${HOW_TO_MAKE_ONE}`);
  }
  if (bytes.length < MIN_KEY_BYTES) {
    throw new TypeError(
      `${what} must hold at least ${MIN_KEY_BYTES} bytes of key material (got ${bytes.length}); ${HOW_TO_MAKE_ONE}`,
    );
  }
  return bytes;
}

/** The 32-byte key for one purpose (HKDF-SHA-256, `purpose` as info): distinct per purpose. */
export function derivedKey(material: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', material, 'weft', purpose, 32));
}
