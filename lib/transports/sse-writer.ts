/**
 * Writes one Server-Sent Events stream onto an HTTP response.
 *
 * A resumable (legacy) stream opens with a priming event (an id and empty data, plus `retry`), so
 * that a client that loses it before the first message still has an id to resume from; a modern
 * stream cannot be resumed and carries no ids at all. A comment line every `keepAliveMs` keeps
 * proxies from cutting an idle stream and lets a dead peer be noticed. A watched stream
 * (`watchReader`) is ended when its reader stops reading, never because one message is large.
 */
import type { ServerResponse } from 'node:http';
import type { JsonPiece } from '../protocol/message-encoding.js';
import type { AnswerBuffers } from './answer-buffers.js';
import { answerPayload, writePayload } from './chunk-bytes.js';
import type { EventFrame } from './event-store.js';
import { type ReaderBounds, StalledReaderWatch } from './stalled-reader.js';

/**
 * One message event with its id, as a resumable stream writes it and its store keeps it: the JSON's
 * chunks (JSON never holds a raw newline) between the event's head and its end, encoded once
 * (a large one as one Buffer, chunk-bytes.ts), never joined into one more string first.
 */
export function eventFrame(
  eventId: string,
  chunks: readonly JsonPiece[],
  buffers?: AnswerBuffers,
): EventFrame {
  return messageFrame(`event: message\nid: ${eventId}\ndata: `, chunks, buffers);
}

function messageFrame(head: string, chunks: readonly JsonPiece[], buffers?: AnswerBuffers): EventFrame {
  return answerPayload([head, ...chunks], '\n\n', buffers);
}

export class SseWriter {
  readonly #response: ServerResponse;
  #keepAlive: NodeJS.Timeout | undefined;
  #ended = false;
  #watch: StalledReaderWatch | undefined;
  /** Where large frames' memory comes from and, once written, goes back (answer-buffers.ts). */
  readonly #buffers: AnswerBuffers | undefined;

  constructor(response: ServerResponse, buffers?: AnswerBuffers) {
    this.#response = response;
    this.#buffers = buffers;
    response.once('close', () => {
      this.#stop();
      // Watched until the socket is done, not only until end(): an ended stream still holds its
      // unread tail, and a reader that stops taking it is cut all the same.
      this.#watch?.stop();
    });
  }

  /** Its response was ended (here, or by whoever owns it: a lapsed caller's stream) or destroyed. */
  get ended(): boolean {
    return this.#ended || this.#response.writableEnded || this.#response.destroyed;
  }

  open(headers: Record<string, string>, keepAliveMs: number): void {
    // No Connection header of our own: Node says keep-alive itself unless the client asked to close
    // (a client's `Connection: close` is then honoured once the stream ends).
    this.#response.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      ...headers,
    });
    this.#response.flushHeaders();
    if (keepAliveMs > 0) {
      this.#keepAlive = setInterval(() => this.#write(': keep-alive\n\n'), keepAliveMs);
      this.#keepAlive.unref();
    }
  }

  prime(eventId: string, retryMs: number): void {
    this.#write(`id: ${eventId}\nretry: ${retryMs}\ndata: \n\n`);
  }

  /**
   * From now on, `onStalled` runs when the reader stops reading (stalled-reader.ts): it has taken
   * nothing for `maxStalledMs` while over `maxBacklogBytes`, or lets messages pile up past the bound.
   */
  watchReader(bounds: ReaderBounds, onStalled: () => void): void {
    this.#watch = new StalledReaderWatch(() => this.backlogBytes, bounds, onStalled, true);
  }

  /** Writes one event's frame (`eventFrame`'s, kept for replay): the same string or bytes every time. */
  frame(frame: EventFrame): void {
    if (this.ended || (this.#watch !== undefined && !this.#watch.admits(frame.length))) return;
    writePayload(this.#response, frame, this.#buffers);
    this.#watch?.wrote(frame.length);
  }

  /** Writes one message event without an id, for a stream that cannot be resumed; `data` as chunks. */
  message(data: readonly JsonPiece[]): void {
    const frame = messageFrame('event: message\ndata: ', data, this.#buffers);
    this.frame(frame);
    this.#buffers?.release(frame);
  }

  /** Bytes written but not yet taken by the client: how far behind a slow reader has fallen. */
  get backlogBytes(): number {
    return this.#response.writableLength;
  }

  /** Ends the stream; with `retryMs`, first tells the client when to come back (the polling pattern). */
  end(retryMs?: number): void {
    if (this.ended) return;
    if (retryMs !== undefined) this.#write(`retry: ${retryMs}\n\n`);
    this.#stop();
    this.#response.end();
  }

  /** Drops the connection at once: its reader fell too far behind for an orderly end. */
  cut(): void {
    this.#stop();
    this.#response.destroy();
  }

  /**
   * `listener` runs once the stream has ended and its every byte was handed to the operating system
   * (the response's 'finish'); never for a stream cut or dropped before that.
   */
  onDelivered(listener: () => void): void {
    if (this.#response.writableFinished) listener();
    else this.#response.once('finish', listener);
  }

  onClose(listener: () => void): void {
    this.#response.once('close', listener);
  }

  #write(text: string): void {
    if (!this.ended) this.#response.write(text);
  }

  #stop(): void {
    this.#ended = true;
    if (this.#keepAlive) clearInterval(this.#keepAlive);
    this.#keepAlive = undefined;
  }
}
