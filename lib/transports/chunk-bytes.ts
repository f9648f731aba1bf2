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
 *
 * A chunk that is bytes already (a long string a pool thread wrote as JSON and moved over,
 * tools/moved-strings.ts) is never copied into such a Buffer: the answer then leaves as parts
 * (`ByteParts`), the JSON around those bytes encoded and the bytes as they are, written one after
 * the other in one corked write. An answer in flight then holds its long string once.
 */
import type { JsonPiece } from '../protocol/message-encoding.js';
import type { AnswerBuffers } from './answer-buffers.js';

/** An answer with at least this many characters leaves as one Buffer; a smaller one as a string. */
const AS_BYTES_FROM_CHARS = 64 * 1024;

/**
 * An answer as buffers to write one after the other: what a transport writes when the answer has
 * chunks that are bytes already. `length` is their total, in bytes.
 */
export class ByteParts {
  readonly length: number;
  constructor(readonly parts: readonly Buffer[]) {
    let length = 0;
    for (const part of parts) length += part.length;
    this.length = length;
  }
}

/** What a transport writes for one answer: a string, one Buffer, or parts. */
export type AnswerPayload = string | Buffer | ByteParts;

/** Characters in a list of chunks (bytes, for chunks that are bytes). */
export function charsIn(chunks: readonly JsonPiece[]): number {
  let chars = 0;
  for (const chunk of chunks) chars += chunk.length;
  return chars;
}

/**
 * What a transport writes for one answer's chunks (then `tail`): one string joined from them when
 * the answer is small (one small copy costs less than writing them one by one), one Buffer of their
 * bytes when it is large, and parts when some chunks are bytes already. The one place that draws
 * those lines, for every transport.
 */
export function answerPayload(
  chunks: readonly JsonPiece[],
  tail = '',
  buffers?: AnswerBuffers,
): AnswerPayload {
  if (chunks.some(Buffer.isBuffer)) return asParts(chunks, tail);
  const strings = chunks as readonly string[];
  if (charsIn(chunks) + tail.length >= AS_BYTES_FROM_CHARS) return chunksAsBytes(strings, tail, buffers);
  return strings.length === 1 && tail === '' ? strings[0]! : strings.join('') + tail;
}

/**
 * The chunks (then `tail`, when given) as one Buffer of their UTF-8 bytes: memory from `buffers`
 * when the transport gives its answers' Buffers back there (answer-buffers.ts).
 */
export function chunksAsBytes(chunks: readonly string[], tail = '', buffers?: AnswerBuffers): Buffer {
  let bytes = Buffer.byteLength(tail);
  for (const chunk of chunks) bytes += Buffer.byteLength(chunk);
  const buffer = buffers ? buffers.take(bytes) : Buffer.allocUnsafe(bytes);
  let at = 0;
  for (const chunk of chunks) at += buffer.write(chunk, at);
  if (tail !== '') buffer.write(tail, at);
  return buffer;
}

/** The chunks as parts: each run of strings encoded into one Buffer, each byte chunk as it is. */
function asParts(chunks: readonly JsonPiece[], tail: string): ByteParts {
  const parts: Buffer[] = [];
  let run: string[] = [];
  for (const chunk of chunks) {
    if (typeof chunk === 'string') {
      run.push(chunk);
      continue;
    }
    if (run.length > 0) parts.push(chunksAsBytes(run));
    run = [];
    parts.push(chunk);
  }
  if (tail !== '') run.push(tail);
  if (run.length > 0) parts.push(chunksAsBytes(run));
  return new ByteParts(parts);
}

/** What an answer's payload is written to: a socket, a response, stdout. */
export interface PayloadSink {
  write(chunk: string | Buffer, callback?: (error?: Error | null) => void): boolean;
  cork(): void;
  uncork(): void;
}

/**
 * Writes an answer's payload to a stream, parts one after the other, corked so that they leave in
 * one writev. A Buffer lent by `buffers` is held until the write is done (answer-buffers.ts): only
 * for a stream whose write's end means its bytes were handed on, not kept (a socket, a response on
 * one). Returns what the last write returned (false: the stream's buffer is full, wait for 'drain').
 */
export function writePayload(out: PayloadSink, payload: AnswerPayload, buffers?: AnswerBuffers): boolean {
  if (payload instanceof ByteParts) {
    let writable = true;
    out.cork();
    for (const part of payload.parts) writable = out.write(part);
    out.uncork();
    return writable;
  }
  if (buffers === undefined || !buffers.lent(payload)) return out.write(payload);
  buffers.hold(payload);
  // A write that fails is never released: its memory is not known to be unread, so it is not reused.
  return out.write(payload, (error) => {
    if (!error) buffers.release(payload);
  });
}

/** The payload as one string or Buffer, for a transport that sends one message as one unit (WebSocket). */
export function wholePayload(payload: AnswerPayload): string | Buffer {
  return payload instanceof ByteParts ? Buffer.concat(payload.parts, payload.length) : payload;
}
