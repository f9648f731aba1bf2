/**
 * Splits a byte stream into newline-delimited messages, with a size limit.
 *
 * Chunks are kept in a list and joined only when a newline arrives, so a large message costs one
 * copy, not one per chunk. A line longer than the limit is skipped up to its newline and reported
 * once, so one oversized message is refused without losing the messages around it. Of a skipped line
 * only its first and last few bytes are kept, where its request id can be read (oversized-message-id.ts).
 */
import { ENVELOPE_BYTES, idOfOversizedMessage } from './oversized-message-id.js';
import { utf8Text } from './utf8-text.js';

export type LineEvent =
  | { kind: 'line'; text: string }
  | { kind: 'too-large'; bytes: number; id: string | number | null };

export class LineSplitter {
  readonly #maxBytes: number;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #skipping = false;
  /** While skipping: the line's first bytes and its last bytes so far. */
  #head: Buffer = Buffer.alloc(0);
  #tail: Buffer = Buffer.alloc(0);

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  *push(chunk: Buffer): Generator<LineEvent> {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(10, start);
      const end = newline === -1 ? chunk.length : newline;
      const piece = chunk.subarray(start, end);
      if (this.#skipping) {
        this.#pendingBytes += piece.length;
        this.#keepTail(piece);
      } else if (this.#pendingBytes + piece.length > this.#maxBytes) {
        this.#startSkipping(piece);
        this.#pendingBytes += piece.length;
      } else {
        if (piece.length > 0) this.#pending.push(piece);
        this.#pendingBytes += piece.length;
      }
      if (newline === -1) break;
      yield* this.#finishLine();
      start = newline + 1;
    }
  }

  /** Whatever is left when the stream ends (a last line without a newline). */
  *end(): Generator<LineEvent> {
    if (this.#pendingBytes > 0) yield* this.#finishLine();
  }

  #startSkipping(piece: Buffer): void {
    const start: Buffer[] = [];
    let kept = 0;
    for (const part of [...this.#pending, piece]) {
      if (kept >= ENVELOPE_BYTES) break;
      start.push(part.subarray(0, ENVELOPE_BYTES - kept));
      kept += start.at(-1)!.length;
    }
    this.#head = Buffer.concat(start);
    this.#tail = Buffer.alloc(0);
    for (const part of this.#pending) this.#keepTail(part);
    this.#keepTail(piece);
    this.#pending = [];
    this.#skipping = true;
  }

  #keepTail(piece: Buffer): void {
    if (piece.length >= ENVELOPE_BYTES) {
      this.#tail = Buffer.from(piece.subarray(piece.length - ENVELOPE_BYTES));
    } else if (piece.length > 0) {
      const joined = Buffer.concat([this.#tail, piece]);
      this.#tail = joined.subarray(Math.max(0, joined.length - ENVELOPE_BYTES));
    }
  }

  *#finishLine(): Generator<LineEvent> {
    const bytes = this.#pendingBytes;
    if (this.#skipping) {
      const id = idOfOversizedMessage(this.#head.toString('utf8'), this.#tail.toString('utf8'));
      this.#head = Buffer.alloc(0);
      this.#tail = Buffer.alloc(0);
      yield { kind: 'too-large', bytes, id };
    } else if (bytes > 0) {
      const text = utf8Text(this.#pending.length === 1 ? this.#pending[0]! : Buffer.concat(this.#pending));
      if (text.trim().length > 0) yield { kind: 'line', text };
    }
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#skipping = false;
  }
}
