/**
 * Splits a byte stream into newline-delimited messages, with a size limit.
 *
 * Chunks are kept in a list and joined only when a newline arrives, so a large message costs one
 * copy, not one per chunk. A line longer than the limit is skipped up to its newline and reported
 * once, so one oversized message is refused without losing the messages around it.
 */
export type LineEvent = { kind: 'line'; text: string } | { kind: 'too-large'; bytes: number };

export class LineSplitter {
  readonly #maxBytes: number;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #skipping = false;

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
      } else if (this.#pendingBytes + piece.length > this.#maxBytes) {
        this.#pending = [];
        this.#skipping = true;
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

  *#finishLine(): Generator<LineEvent> {
    const bytes = this.#pendingBytes;
    if (this.#skipping) {
      yield { kind: 'too-large', bytes };
    } else if (bytes > 0) {
      const text = (this.#pending.length === 1 ? this.#pending[0]! : Buffer.concat(this.#pending)).toString(
        'utf8',
      );
      if (text.trim().length > 0) yield { kind: 'line', text };
    }
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#skipping = false;
  }
}
