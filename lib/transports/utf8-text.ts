/**
 * A message's text from its UTF-8 bytes, for every transport that reads one.
 *
 * On Node 20 and 22, decoding UTF-8 into a string of 256 KiB or more takes V8's slow path
 * (~0.45 ns a byte: 3.4-3.5 ms for 8 MiB), where the same bytes, known to be ASCII, decode as
 * Latin-1 by a copy (0.7-0.9 ms with the check). Large messages are mostly ASCII (base64, JSON of
 * English text), so a large one is checked first (`isAscii`, a SIMD scan: ~0.1 ms for 8 MiB) and
 * read as Latin-1 when it is, which for ASCII bytes is the same text. Node 24 decodes UTF-8 as fast
 * as the copy, so there the check costs nothing measurable either way (issue 39).
 */
import { isAscii } from 'node:buffer';

/** From this many bytes, an ASCII message is read by the copy. */
const CHECKED_FROM_BYTES = 256 * 1024;

export function utf8Text(bytes: Buffer): string {
  if (bytes.length >= CHECKED_FROM_BYTES && isAscii(bytes)) return bytes.toString('latin1');
  return bytes.toString('utf8');
}
