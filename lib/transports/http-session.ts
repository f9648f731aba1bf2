/**
 * One Streamable HTTP session (an `Mcp-Session-Id`): its connection to the server, its event
 * store, and the SSE writers currently attached to its streams.
 *
 * Messages are sent to a stream, never to a response: the store keeps them, and whichever writer is
 * attached right now (the original POST response, or a GET that resumed it) delivers them. That is
 * what lets a POST stream be closed mid-call and resumed later without a message lost or sent twice.
 * The standalone stream (the GET without Last-Event-ID) carries what answers no particular request.
 * A writer whose reader stops reading (stalled-reader.ts: more than `maxBacklogBytes` unread and
 * nothing taken for `maxStalledMs`, or messages piling past the bound) is cut, as on modern streams;
 * one answer larger than the bound never is. The legacy rules keep its calls running, and what it
 * missed stays in the store for a resume.
 */
import type { Principal } from '../auth/principal.js';
import type { JsonRpcMessage } from '../protocol/json-rpc.js';
import { HTTP_DEFAULT_VERSION } from '../protocol/versions.js';
import type { PeerAddress } from '../router/session.js';
import type { AnswerBuffers } from './answer-buffers.js';
import type { Connect, Connection } from './connection.js';
import { EventStore, type ReplayBudget } from './event-store.js';
import { eventFrame, type SseWriter } from './sse-writer.js';
import type { ReaderBounds } from './stalled-reader.js';

export const STANDALONE_STREAM = 'standalone';

/** The first version whose clients expect a priming event (dates compare as strings). */
const PRIMING_VERSION = '2025-11-25';

export class HttpSession {
  readonly connection: Connection;
  readonly store: EventStore;
  readonly #writers = new Map<string, SseWriter>();
  lastSeen = Date.now();
  /** False until the client makes a request (or opens a stream) after its initialize. */
  used = false;
  #closed = false;
  readonly #readerBounds: ReaderBounds;
  readonly #buffers: AnswerBuffers | undefined;

  /** `bounds.buffers`: where large frames' memory comes from and goes back to (answer-buffers.ts). */
  constructor(
    readonly id: string,
    connect: Connect,
    bounds: {
      maxEvents: number;
      maxBytes: number;
      budget?: ReplayBudget;
      reader: ReaderBounds;
      buffers?: AnswerBuffers;
    },
    principal?: Principal,
    peer?: PeerAddress,
    caller?: string,
  ) {
    this.store = new EventStore(bounds.maxEvents, bounds.maxBytes, bounds.budget, bounds.buffers);
    this.#readerBounds = bounds.reader;
    this.#buffers = bounds.buffers;
    this.store.openStream(STANDALONE_STREAM);
    this.connection = connect(
      { send: (message) => this.send(STANDALONE_STREAM, message) },
      id,
      principal,
      peer,
      caller,
    );
  }

  /** Who opened the session (at initialize); only that principal may use it. */
  get principal(): Principal | undefined {
    return this.connection.session.principal;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** True when nothing is running or streaming: the session may be expired. */
  get idle(): boolean {
    return this.connection.session.inFlightCount === 0 && this.#writers.size === 0;
  }

  send(streamId: string, message: JsonRpcMessage | JsonRpcMessage[]): void {
    if (this.#closed) return;
    const chunks = this.connection.encodeChunks(message);
    if (chunks === undefined) return;
    // One frame, encoded once, is both what the stream writes and what the store keeps for a resume;
    // each holds its memory while it needs it, and this send lets go once it handed the frame on.
    const frame = eventFrame(this.store.nextId(streamId), chunks, this.#buffers);
    this.store.append(streamId, frame);
    const writer = this.#writers.get(streamId);
    if (writer && !writer.ended) writer.frame(frame);
    this.#buffers?.release(frame);
  }

  /**
   * Opens a new reader of a stream with the stream's latest id (an event with empty data), so it can
   * resume before the first message. Only for 2025-11-25 and later: older clients cannot parse an
   * event with empty `data:`, and their era has no priming event.
   */
  prime(writer: SseWriter, streamId: string, retryMs: number): void {
    const version = this.connection.session.protocolVersion ?? HTTP_DEFAULT_VERSION;
    if (version >= PRIMING_VERSION) writer.prime(this.store.primingId(streamId), retryMs);
  }

  /** Makes `writer` the live writer of a stream; a writer already there is ended (one reader at a time). */
  attach(streamId: string, writer: SseWriter): void {
    const previous = this.#writers.get(streamId);
    if (previous && previous !== writer) previous.end();
    this.#writers.set(streamId, writer);
    writer.watchReader(this.#readerBounds, () => {
      if (this.#writers.get(streamId) === writer) this.#writers.delete(streamId);
      writer.cut();
    });
    writer.onClose(() => {
      if (this.#writers.get(streamId) === writer) this.#writers.delete(streamId);
    });
  }

  /** Detaches a stream's writer without finishing the stream (the client will poll for the rest). */
  release(streamId: string, retryMs: number): void {
    const writer = this.#writers.get(streamId);
    this.#writers.delete(streamId);
    writer?.end(retryMs);
  }

  /**
   * The stream is complete (its request was answered): its writer ends. Its events stay for a
   * resume until a writer has delivered them all (`endDelivered`); a client that lost the stream
   * first finds them there.
   */
  finish(streamId: string): void {
    this.store.finish(streamId);
    const writer = this.#writers.get(streamId);
    this.#writers.delete(streamId);
    if (writer) this.endDelivered(streamId, writer);
  }

  /**
   * Ends `writer`, the last reader of a finished stream; once its response is handed whole to the
   * operating system every event is on its way, and the store forgets them at once instead of
   * keeping them until its bounds push them out (a connection that breaks after that loses what the
   * kernel still held, as any HTTP response would; the client's resume is then refused with 404). Kept, each answer outlived V8's young generation
   * and its collection cost the server ~60 us a 100 KiB call at 8 in flight (issue 39). A stream
   * cut or dropped before that keeps its events for the client's resume.
   */
  endDelivered(streamId: string, writer: SseWriter): void {
    writer.end();
    writer.onDelivered(() => this.store.forget(streamId));
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.connection.close();
    for (const writer of this.#writers.values()) writer.end();
    this.#writers.clear();
    this.store.clear();
  }
}
