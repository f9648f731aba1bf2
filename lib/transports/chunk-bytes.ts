/**
 * A large answer's chunks as one Buffer, encoded once, for every transport to write.
 *
 * Written as strings, chunks are encoded by Node into native memory the JavaScript heap does not
 * know of, so V8 sees only the strings and collects when they alone fill its budget: with 8 answers
 * of 8 MiB in flight over HTTP, the strings of finished answers grew the heap to 280-366 MiB before
 * a full collection, and the process peaked 60-290 MiB above SDK + Piscina's (issue 39). As a
 * Buffer, the bytes count toward V8's next collection, which then comes sooner. It is the one
 * encoding Node would have made itself, and no joined string is made on the way (a chunk that is
 * a rope, as JSON.stringify's output is, is flattened by the encoding, as it was by Node's).
 */

/** An answer with at least this many characters leaves as one Buffer; a smaller one as a string. */
const AS_BYTES_FROM_CHARS = 64 * 1024;

/** Characters in a list of chunks. */
export function charsIn(chunks: readonly string[]): number {
  let chars = 0;
  for (const chunk of chunks) chars += chunk.length;
  return chars;
}

/**
 * What a transport writes for one answer's chunks (then `tail`): one string joined from them when
 * the answer is small (one small copy costs less than writing them one by one), one Buffer of their
 * bytes when it is large. The one place that draws that line, for every transport.
 */
export function answerPayload(chunks: readonly string[], tail = ''): string | Buffer {
  if (charsIn(chunks) + tail.length >= AS_BYTES_FROM_CHARS) return chunksAsBytes(chunks, tail);
  return chunks.length === 1 && tail === '' ? chunks[0]! : chunks.join('') + tail;
}

/** The chunks (then `tail`, when given) as one Buffer of their UTF-8 bytes. */
export function chunksAsBytes(chunks: readonly string[], tail = ''): Buffer {
  let bytes = Buffer.byteLength(tail);
  for (const chunk of chunks) bytes += Buffer.byteLength(chunk);
  const buffer = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (const chunk of chunks) at += buffer.write(chunk, at);
  if (tail !== '') buffer.write(tail, at);
  return buffer;
}
