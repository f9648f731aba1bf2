/**
 * The stdio transport: newline-delimited JSON-RPC on stdin/stdout.
 *
 * stdout carries protocol and nothing else (logs go to stderr). Outgoing messages produced during
 * one turn of the event loop are written together (small ones joined, a large one as one Buffer of
 * its own, in one writev), which keeps throughput high under pipelined load without delaying any answer
 * past the current turn or copying a large one into a joined string. Every malformed line is answered, with
 * `id: null` (an oversized one with its id when its ends show it), and the stream carries on. A client that stops reading its answers is stopped being
 * read from (backpressure), so memory stays bounded; a client that is gone ends the connection.
 */
import { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { failure, type JsonRpcMessage, parseError } from '../protocol/json-rpc.js';
import type { JsonPiece } from '../protocol/message-encoding.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import { AnswerBuffers } from './answer-buffers.js';
import { answerPayload, writePayload } from './chunk-bytes.js';
import type { Connect, Connection } from './connection.js';
import { type LineEvent, LineSplitter } from './line-splitter.js';

export interface StdioOptions {
  input?: Readable;
  output?: Writable;
  /** Largest accepted message in bytes; a longer line gets an error, the stream goes on. */
  maxMessageBytes: number;
}

export class StdioTransport {
  readonly #connection: Connection;
  readonly #input: Readable;
  readonly #output: Writable;
  readonly #splitter: LineSplitter;
  readonly #maxMessageBytes: number;
  /** Each message's text as chunks (connection.encodeChunks), in the order they were sent. */
  #outbox: (readonly JsonPiece[])[] = [];
  /** Characters in #outbox: with stdout's own buffer, what the client has not yet been sent. */
  #outboxChars = 0;
  #flushScheduled = false;
  /** Set when stdout fails (EPIPE: the client is gone); nothing more is written. */
  #outputBroken = false;
  /** Reading is paused until stdout drains (the client reads slower than we answer). */
  #waitingForDrain = false;
  #stoppedReading = false;
  /**
   * Large answers' memory, back once stdout has handed their bytes to the system
   * (answer-buffers.ts). Only a socket (a pipe, a terminal) says so by its write's callback; any
   * other stream (a PassThrough, a user's Writable) may still hold the Buffer then, and gets
   * fresh memory for every answer.
   */
  readonly #buffers: AnswerBuffers | undefined;
  readonly ended: Promise<void>;

  constructor(connect: Connect, options: StdioOptions) {
    this.#input = options.input ?? process.stdin;
    this.#output = options.output ?? process.stdout;
    this.#buffers = this.#output instanceof Socket ? new AnswerBuffers() : undefined;
    this.#maxMessageBytes = options.maxMessageBytes;
    this.#splitter = new LineSplitter(options.maxMessageBytes);
    this.#connection = connect({
      send: (message) => this.#send(message),
      backlogBytes: () => this.#outboxChars + this.#output.writableLength,
    });
    this.ended = new Promise<void>((resolve) => {
      this.#input.on('data', (chunk: Buffer) => {
        // Every message of a chunk arrived with it: a deadline counts from here, not from its turn.
        const arrivedAt = performance.now();
        for (const event of this.#splitter.push(chunk)) this.#onLine(event, arrivedAt);
      });
      this.#input.once('end', () => {
        for (const event of this.#splitter.end()) this.#onLine(event);
        resolve();
      });
      this.#input.once('close', () => resolve());
      this.#input.once('error', () => resolve());
      // A client that vanished leaves a broken pipe: writing to it must end the connection, not
      // crash the server with an unhandled EPIPE. No one can read answers any more, so the
      // connection is closed at once, which cancels its in-flight calls.
      this.#output.on('error', () => {
        if (this.#outputBroken) return;
        this.#outputBroken = true;
        this.#outbox = [];
        this.#outboxChars = 0;
        this.#connection.close();
        resolve();
      });
    });
  }

  /** Stops reading; in-flight calls keep running until the server closes them. */
  stopReading(): void {
    this.#stoppedReading = true;
    this.#input.pause();
  }

  /** Writes what is queued now; used before the process exits. */
  flush(): Promise<void> {
    if (this.#outputBroken) return Promise.resolve();
    this.#flush();
    return new Promise((resolve) => this.#output.write('', () => resolve()));
  }

  #onLine(event: LineEvent, arrivedAt = performance.now()): void {
    if (event.kind === 'too-large') {
      // With the id read from the message's ends, the client can match this answer to its request.
      this.#send(
        failure(
          event.id,
          ProtocolError.invalidRequest(
            `Message of ${event.bytes} bytes exceeds the ${this.#maxMessageBytes}-byte limit: raise the ` +
              "server's maxMessageBytes option, or send large data as a resource link",
          ),
        ),
      );
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(event.text);
    } catch (error) {
      this.#send(parseError((error as Error).message));
      return;
    }
    this.#connection.receive(value, undefined, arrivedAt);
  }

  #send(message: JsonRpcMessage | JsonRpcMessage[]): void {
    const chunks = this.#connection.encodeChunks(message);
    if (chunks !== undefined) this.#enqueue(chunks);
  }

  #enqueue(chunks: readonly JsonPiece[]): void {
    this.#outbox.push(chunks);
    for (const chunk of chunks) this.#outboxChars += chunk.length;
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(() => this.#flush());
    }
  }

  #flush(): void {
    this.#flushScheduled = false;
    this.#outboxChars = 0;
    if (this.#outbox.length === 0 || this.#outputBroken) {
      this.#outbox = [];
      return;
    }
    const outbox = this.#outbox;
    this.#outbox = [];
    // Small messages of one turn are joined into one write, as cheap as writes get; a large one is
    // written as its own Buffer, never copied into a joined string first (issue 39: the join was a
    // third of the CPU of a 1 MiB answer). Corked, they all leave in one writev.
    this.#output.cork();
    let small: string[] = [];
    let writable = true;
    for (const chunks of outbox) {
      const payload = answerPayload(chunks, '', this.#buffers);
      if (typeof payload === 'string') {
        small.push(payload);
        continue;
      }
      if (small.length > 0) this.#output.write(`${small.join('\n')}\n`);
      small = [];
      // Its memory serves a later answer once stdout has handed these bytes to the system.
      writePayload(this.#output, payload, this.#buffers);
      this.#buffers?.release(payload);
      writable = this.#output.write('\n');
    }
    if (small.length > 0) writable = this.#output.write(`${small.join('\n')}\n`);
    this.#output.uncork();
    // Backpressure: a client that does not read its answers stops being read from, so it cannot
    // pile up work and answers in this process faster than it takes them away.
    if (!writable && !this.#waitingForDrain) {
      this.#waitingForDrain = true;
      this.#input.pause();
      this.#output.once('drain', () => {
        this.#waitingForDrain = false;
        if (!this.#stoppedReading) this.#input.resume();
      });
    }
  }

  close(): void {
    this.#buffers?.close();
    this.#connection.close();
  }
}
