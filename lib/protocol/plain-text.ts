/**
 * What can be known about a long string cheaply, without copying it: whether it is base64 as
 * clients check it, and whether its JSON form is the string itself between quotes.
 *
 * Heavy results are mostly long strings (an image's base64, an extracted text). Each of these tests
 * scans, where the alternatives (atob, JSON.stringify) build a second string of the same length,
 * and on an 8 MiB text that copy is most of what a call costs (issue 39).
 */

/** What one chunk of a text is decoded into while it is checked: 48 KiB, reused. */
const SCRATCH = Buffer.allocUnsafe(48 * 1024);
/** Characters decoded per chunk: a multiple of four, filling SCRATCH exactly when valid. */
const CHUNK_CHARS = (SCRATCH.length / 3) * 4;

/**
 * Base64 as clients check it is what the platform's `atob` accepts. Nearly every text is canonical
 * base64 (padded to a multiple of four characters), which `isPlainBase64` settles with Node's
 * decoder; anything else (unpadded, whitespace inside) is left to this, which decodes the whole
 * text into a second string to say so.
 */
export function isAtobBase64(text: string): boolean {
  try {
    atob(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Only letters, digits, `+` and `/`, with `=` as padding, in whole groups of four: canonical base64.
 * Node's vectorised decoder skips what is not base64, so such a text is plain exactly when every
 * chunk decodes to the bytes its length promises; it reads a character past U+00FF by its low byte
 * and takes base64url's `-` and `_`, which atob refuses, so an ASCII-only text and the absence of
 * those two are checked apart. Decoded 64 Ki characters at a time into one small buffer: about
 * 0.3 ns/B on an 8 MiB image, against 1.2-1.5 for a regular expression and 0.3-0.45 for atob,
 * which also allocates the decoded bytes (Node 20 and 24).
 */
export function isPlainBase64(text: string): boolean {
  if (text.length % 4 !== 0) return false;
  if (Buffer.byteLength(text, 'utf8') !== text.length) return false;
  if (text.includes('-') || text.includes('_')) return false;
  for (let at = 0; at < text.length; at += CHUNK_CHARS) {
    const chunk = text.slice(at, at + CHUNK_CHARS);
    // A chunk before the last has no padding: it fills the buffer exactly.
    const promised = at + CHUNK_CHARS < text.length ? SCRATCH.length : Buffer.byteLength(chunk, 'base64');
    if (SCRATCH.write(chunk, 0, 'base64') !== promised) return false;
  }
  return true;
}

/** A character JSON must escape inside a string: a quote, a backslash, a control character. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;

/**
 * True when `JSON.stringify(text)` is `text` between two quotes, so the text can be written as it
 * is. Checked cheapest first: ASCII (a vectorised length count), then the characters that make most
 * texts fail at once (a newline, a quote, a backslash: memchr-fast searches), then canonical base64,
 * which proves the rest for an image's data; a regular expression settles the remaining texts.
 * Lone surrogates and other non-ASCII text answer false: JSON.stringify knows what to do with them.
 */
export function isJsonVerbatim(text: string): boolean {
  if (Buffer.byteLength(text, 'utf8') !== text.length) return false;
  if (text.includes('\n') || text.includes('"') || text.includes('\\')) return false;
  if (isPlainBase64(text)) return true;
  return !NEEDS_ESCAPE.test(text);
}
