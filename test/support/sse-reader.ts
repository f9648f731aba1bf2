/**
 * Reads SSE messages off a fetch body as they come, one at a time, for suites that follow a stream
 * that stays open (a listen stream, a GET stream): `next()` resolves the next message's JSON, or
 * undefined once the stream has ended.
 */
import type { Wire } from '../transports/modern-http-peer.js';

export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<string>;
  #buffer = '';
  #queue: Wire[] = [];
  ended = false;

  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.pipeThrough(new TextDecoderStream()).getReader();
  }

  async next(): Promise<Wire | undefined> {
    while (this.#queue.length === 0) {
      const { value, done } = await this.#reader.read();
      if (done) {
        this.ended = true;
        return undefined;
      }
      this.#buffer += value;
      let cut = this.#buffer.indexOf('\n\n');
      while (cut >= 0) {
        const block = this.#buffer.slice(0, cut);
        this.#buffer = this.#buffer.slice(cut + 2);
        cut = this.#buffer.indexOf('\n\n');
        const data = block
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trim())
          .join('');
        if (data !== '') this.#queue.push(JSON.parse(data));
      }
    }
    return this.#queue.shift();
  }
}
