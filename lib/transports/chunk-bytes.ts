/**
 * A large answer's chunks as one Buffer, encoded once, for every transport to write.
 *
 * Written as strings, chunks are encoded by Node into native memory the JavaScript heap does not
 * know of, so V8 sees only the strings and collects when they alone fill its budget: with 8 answers
 * of 8 MiB in flight over HTTP, the strings of finished answers grew the heap to 280-366 MiB before
 * a full collection, and the process peaked 60-290 MiB above SDK + Piscina's (issue 39). As a
 * Buffer, the bytes count toward V8's next collection, which then comes sooner. It is the one
 * encoding Node would have made itself, and no joined string is made on the way (a chunk that is
 * a rope, as JSON.stringify's output is, is flattened by the encoding, as it was by Node's). A chunk
 * that is already bytes (a long string escaped into UTF-8, json-escape.ts) is copied as it is.
 */
import { type JsonPiece, lengthOf } from '../protocol/message-encoding.js';

/** An answer with at least this many characters leaves as one Buffer; a smaller one as a string. */
const AS_BYTES_FROM_CHARS = 64 * 1024;

/** Characters in a list of chunks (a byte of a chunk that is bytes counting as one). */
export const charsIn = lengthOf;

/**
 * What a transport writes for one answer's chunks (then `tail`): one string joined from them when
 * the answer is small (one small copy costs less than writing them one by one), one Buffer of their
 * bytes when it is large. The one place that draws that line, for every transport.
 */
export function answerPayload(chunks: readonly JsonPiece[], tail = ''): string | Buffer {
  if (charsIn(chunks) + tail.length >= AS_BYTES_FROM_CHARS) return chunksAsBytes(chunks, tail);
  if (chunks.length === 1 && tail === '' && typeof chunks[0] === 'string') return chunks[0];
  let text = '';
  for (const chunk of chunks) {
    if (typeof chunk !== 'string') return chunksAsBytes(chunks, tail);
    text += chunk;
  }
  return text + tail;
}

/** The chunks (then `tail`, when given) as one Buffer of their UTF-8 bytes. */
export function chunksAsBytes(chunks: readonly JsonPiece[], tail = ''): Buffer {
  let bytes = Buffer.byteLength(tail);
  for (const chunk of chunks)
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
  const buffer = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (const chunk of chunks) {
    if (typeof chunk === 'string') {
      at += buffer.write(chunk, at);
    } else {
      buffer.set(chunk, at);
      at += chunk.byteLength;
    }
  }
  if (tail !== '') buffer.write(tail, at);
  return buffer;
}
