/**
 * Streamable HTTP for the 2026-07-28 era: one POST, one request, one connection of its own.
 *
 * There are no sessions: every request is checked on its own (modern-request-checks.ts), then served
 * on a connection opened for it alone and closed when its answer is complete. The answer is a JSON
 * object when it is ready at once, else a request-scoped SSE stream (its progress and log
 * notifications, then its response) with no event ids, because modern streams cannot be resumed.
 * A `subscriptions/listen` request is simply a request whose stream stays open.
 *
 * The client closing its response stream is the era's cancel: the connection is closed, which
 * cancels the call exactly as `notifications/cancelled` would (a blocking call's flag is raised and
 * its thread stopped), and nothing more is written for it. A reader that stops reading
 * (stalled-reader.ts) is treated the same way, so a stalled client cannot make the server buffer
 * without bound; a reader that takes an answer larger than the bound, however slowly, is not. Nothing on
 * these streams is ever a server-to-client request: this era asks through `input_required` results.
 *
 * A stream that stays open (a listen stream, a long call) has its caller's rights re-checked while
 * it is (rights-watch.ts): when they lapse (a revoked token, an expired one), the request is
 * answered with a JSON-RPC error saying so (-32014, `data.status` the HTTP status a new request
 * would get) and the stream ends, cancelling what still runs.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../auth/principal.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { httpHeadersFor, httpStatusFor } from '../protocol/http-status.js';
import {
  classify,
  failure,
  type JsonRpcMessage,
  type JsonRpcResponse,
  type RequestId,
} from '../protocol/json-rpc.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import type { MessageSink, PeerAddress } from '../router/session.js';
import { AnswerBuffers } from './answer-buffers.js';
import { arrivalOf } from './arrival.js';
import { type Connect, type Connection, peerOf } from './connection.js';
import { sendJson, sendJsonChunks } from './http-replies.js';
import { checkModernRequest, type ModernRouting } from './modern-request-checks.js';
import { settlesWithinOneTurn } from './posted-message.js';
import { whenGone } from './request-gone.js';
import type { RightsLapse, StopWatching } from './rights-watch.js';
import { type ScopeGate, sendScopeRefusal } from './scope-gate.js';
import { SseWriter } from './sse-writer.js';
import type { ReaderBounds } from './stalled-reader.js';

export interface ModernHttpOptions {
  /** A comment line this often on an open stream (listen streams are long and mostly quiet); 0 = none. */
  keepAliveMs: number;
  /** When a stream's reader has stopped reading: its stream is cut and its request cancelled. */
  reader: ReaderBounds;
  /** Re-checks the caller's rights while a stream is open (the transport's RightsWatch). */
  watchRights?: (
    request: IncomingMessage,
    principal: Principal | undefined,
    onLapse: (lapse: RightsLapse) => void,
  ) => StopWatching;
}

const isResponse = (message: JsonRpcMessage | JsonRpcMessage[]): message is JsonRpcResponse =>
  !Array.isArray(message) && !('method' in message);

const isServerRequest = (message: JsonRpcMessage | JsonRpcMessage[]) =>
  !Array.isArray(message) && 'method' in message && 'id' in message;

/** One modern request being answered: its connection, and its stream once it has one. */
interface Exchange {
  readonly connection: Connection;
  readonly response: ServerResponse;
  stream: SseWriter | undefined;
  /** Opens the stream now, while the request waits to see whether it needs one. */
  streamWanted?: (() => void) | undefined;
  /** Set once nothing more may be written: the answer is complete, or the client is gone. */
  over: boolean;
  /** Stops re-checking the caller's rights (set while the stream is open). */
  stopWatching?: StopWatching;
  /** Stops listening for its client's leaving. */
  unwatchClient?: () => void;
}

export class ModernHttpRequests {
  readonly #connect: Connect;
  readonly #routing: ModernRouting;
  readonly #scopes: ScopeGate;
  readonly #options: ModernHttpOptions;
  readonly #exchanges = new Set<Exchange>();
  /** Large answers' memory, shared by every exchange's replies (answer-buffers.ts). */
  readonly #buffers = new AnswerBuffers();

  constructor(connect: Connect, routing: ModernRouting, scopes: ScopeGate, options: ModernHttpOptions) {
    this.#connect = connect;
    this.#routing = routing;
    this.#scopes = scopes;
    this.#options = options;
  }

  /** Requests being answered right now (listen streams included). */
  get openCount(): number {
    return this.#exchanges.size;
  }

  /**
   * Serves one POST whose body is a modern message; `accepting` is false while the server stops.
   * `principal` is who the auth hook vouched for and `caller` the caller key worked out at the
   * door (caller-identity.ts): the request's connection carries both.
   */
  async post(
    request: IncomingMessage,
    response: ServerResponse,
    body: unknown,
    acceptsSse: boolean,
    accepting: boolean,
    principal?: Principal,
    caller?: string,
  ): Promise<void> {
    const message = classify(body);
    switch (message.kind) {
      case 'invalid':
        return refuse(response, message.id, message.error);
      case 'response':
        return refuse(
          response,
          null,
          ProtocolError.invalidRequest(
            'A 2026-07-28 client sends no responses: this server sends it no requests',
          ),
        );
      case 'notification': {
        // Accepted, then handed over; there is no one to answer. (Over HTTP this era cancels by
        // closing the stream, so a client has no notification it needs to send.)
        response.writeHead(202).end();
        const connection = this.#connect(
          { send: () => {} },
          undefined,
          principal,
          peerOf(request.socket),
          caller,
        );
        connection.receive(body, undefined, arrivalOf(request));
        connection.close();
        return;
      }
      case 'request': {
        const { id, method, params } = message.message;
        if (!accepting) {
          const error = new ProtocolError(
            ErrorCode.ShuttingDown,
            'The server is shutting down and takes no new requests',
          );
          return refuse(response, id, error);
        }
        const refusal = checkModernRequest(request.headers, method, params, this.#routing);
        if (refusal) return refuse(response, id, refusal.error, refusal.fromEnvelope);
        const forbidden = this.#scopes.refusal(principal, [message.message], request);
        if (forbidden) return sendScopeRefusal(response, forbidden);
        return this.#answer(body, id, acceptsSse, request, response, principal, caller);
      }
    }
  }

  /** Ends every open stream, cancelling what is still running (the server is stopping). */
  close(): void {
    for (const exchange of [...this.#exchanges]) this.#end(exchange);
    this.#buffers.close();
  }

  async #answer(
    body: unknown,
    id: RequestId,
    acceptsSse: boolean,
    request: IncomingMessage,
    response: ServerResponse,
    principal: Principal | undefined,
    caller: string | undefined,
  ): Promise<void> {
    const peer: PeerAddress | undefined = peerOf(request.socket);
    const buffered: JsonRpcMessage[] = [];
    const sink: MessageSink = {
      send: (message) => {
        if (exchange.over) return;
        if (isServerRequest(message)) {
          // Thrown to the caller (Session.request), whose promise then rejects at once.
          throw new ProtocolError(
            ErrorCode.InternalError,
            'A 2026-07-28 request cannot be sent server-to-client requests (sampling, elicitation, roots); ask through an input_required result instead',
          );
        }
        if (Array.isArray(message)) return;
        if (exchange.stream) this.#write(exchange, message);
        else {
          buffered.push(message);
          // Something other than the answer: now there is something to stream.
          if (!isResponse(message)) exchange.streamWanted?.();
        }
      },
      // A listen stream holds its (coalesced) notifications back while this is large, well before
      // the stream's reader watch would cut it for letting them pile up.
      backlogBytes: () => exchange.stream?.backlogBytes ?? 0,
    };
    const exchange: Exchange = {
      connection: this.#connect(sink, undefined, principal, peer, caller),
      response,
      stream: undefined,
      over: false,
    };
    this.#exchanges.add(exchange);
    // Closed by the client before the answer is complete (or the socket died): that is a cancel,
    // heard on the connection too (a response queued on a kept-alive connection hears nothing;
    // request-gone.ts), and at once for a client gone while its body was read.
    exchange.unwatchClient = whenGone(request, response, () => this.#end(exchange));
    try {
      if (exchange.over) return;
      let pending = exchange.connection.receive(body, sink, arrivalOf(request));
      if (pending !== undefined && (await settlesWithinOneTurn(pending))) pending = undefined;
      if (exchange.over) return;
      if (pending === undefined && (buffered.every(isResponse) || !acceptsSse)) {
        return answerJson(response, exchange.connection, buffered.find(isResponse), this.#buffers);
      }
      const openStream = () => {
        this.#openStream(exchange, buffered);
        exchange.stopWatching = this.#options.watchRights?.(request, principal, (lapse) =>
          this.#lapse(exchange, id, lapse),
        );
      };
      if (acceptsSse && buffered.some((message) => !isResponse(message))) openStream();
      else if (acceptsSse && pending !== undefined) {
        // The stream opens lazily: when the request first sends something other than its answer
        // (progress, a log, a listen's acknowledgement), or when the first keep-alive would be due
        // (so a long silent call still gets its headers before a client's or proxy's timeout).
        // An answer that comes first goes out as plain JSON, with its HTTP status (a refusal
        // arriving after an upstream's round trip is still a 400, not an in-band error on a 200).
        const open = () => {
          clearTimeout(timer);
          exchange.streamWanted = undefined;
          if (!exchange.over && exchange.stream === undefined) openStream();
        };
        const timer = setTimeout(open, this.#options.keepAliveMs > 0 ? this.#options.keepAliveMs : 15_000);
        exchange.streamWanted = open;
        await pending.finally(() => clearTimeout(timer));
        exchange.streamWanted = undefined;
      }
      await pending;
      if (!exchange.over && exchange.stream === undefined) {
        answerJson(response, exchange.connection, buffered.find(isResponse), this.#buffers);
      }
    } finally {
      this.#end(exchange);
    }
  }

  #openStream(exchange: Exchange, buffered: readonly JsonRpcMessage[]): void {
    const stream = new SseWriter(exchange.response, this.#buffers);
    stream.open({ 'x-accel-buffering': 'no' }, this.#options.keepAliveMs);
    exchange.stream = stream;
    stream.watchReader(this.#options.reader, () => {
      this.#end(exchange);
      stream.cut();
    });
    for (const message of buffered) this.#write(exchange, message);
  }

  #write(exchange: Exchange, message: JsonRpcMessage): void {
    const stream = exchange.stream!;
    const chunks = exchange.connection.encodeChunks(message);
    if (chunks === undefined) return;
    stream.message(chunks);
  }

  /** The caller's rights lapsed while its stream was open: the request is answered with why. */
  #lapse(exchange: Exchange, id: RequestId, lapse: RightsLapse): void {
    if (exchange.over || exchange.stream === undefined) return;
    const error = new ProtocolError(
      ErrorCode.CredentialsLapsed,
      `${lapse.message}; send the request again with a valid token`,
      { status: lapse.status },
    );
    this.#write(exchange, failure(id, error));
    this.#end(exchange);
  }

  /** Nothing more is written: the connection closes (cancelling what still runs), the stream ends. */
  #end(exchange: Exchange): void {
    if (exchange.over) return;
    exchange.over = true;
    exchange.stopWatching?.();
    exchange.unwatchClient?.();
    this.#exchanges.delete(exchange);
    exchange.connection.close();
    exchange.stream?.end();
  }
}

function refuse(
  response: ServerResponse,
  id: RequestId | null,
  error: ProtocolError,
  fromEnvelope = false,
): void {
  // An id, a code, a message and the data of weft's own errors (strings and arrays of them).
  const text = JSON.stringify(failure(id, error));
  sendJson(response, httpStatusFor('modern', error.code, fromEnvelope), text);
}

function answerJson(
  response: ServerResponse,
  connection: Connection,
  answer: JsonRpcResponse | undefined,
  buffers: AnswerBuffers,
): void {
  // Every request is answered or cancelled; reaching this is a bug in a method, not the client's.
  const chunks = answer === undefined ? undefined : connection.encodeChunks(answer);
  if (answer === undefined || chunks === undefined) {
    const error = new ProtocolError(
      ErrorCode.InternalError,
      'The server produced no answer for this request',
    );
    sendJson(response, 500, JSON.stringify(failure(null, error)));
    return;
  }
  if (!('error' in answer)) {
    sendJsonChunks(response, 200, chunks, {}, buffers);
    return;
  }
  // A caller over its limits hears when to retry in a header too (Retry-After), as HTTP clients expect.
  const headers = httpHeadersFor('modern', answer.error.data);
  sendJsonChunks(response, httpStatusFor('modern', answer.error.code), chunks, headers, buffers);
}
