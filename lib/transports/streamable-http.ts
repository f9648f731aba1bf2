/**
 * Streamable HTTP (the legacy-era rules of 2025-11-25) on `node:http`, at one endpoint (`/mcp`).
 *
 * - POST carries one message (or a 2025-03-26 batch). Notifications and responses get 202. A request
 *   answered at once gets `application/json`; one still running gets an SSE stream carrying its
 *   notifications (progress, logs, requests to the client) and then its response.
 * - `initialize` mints an `Mcp-Session-Id`; every later request must carry it (unknown -> 404,
 *   missing -> 400); DELETE ends the session; idle sessions expire.
 * - GET opens the standalone stream, or with `Last-Event-ID` resumes any stream of the session from
 *   the event store. A stream may also be closed on purpose mid-call (`retry`, then close: the
 *   polling pattern), so long calls need not hold a connection open.
 * - A client that vanishes mid-call does not cancel it (the spec says so for this era); its answer
 *   waits in the event store. `notifications/cancelled` does cancel.
 * - Host/Origin must be local unless allowed (DNS rebinding); bodies are size-limited (413); while
 *   the server shuts down new requests get 503; an optional `auth` hook runs before anything else.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ErrorCode } from '../protocol/error-codes.js';
import { classify, type JsonRpcMessage, type JsonRpcRequest } from '../protocol/json-rpc.js';
import { isSupportedVersion, LEGACY_VERSIONS } from '../protocol/versions.js';
import type { AuthHook } from './bearer-auth.js';
import type { Connect } from './connection.js';
import { readJsonBody } from './http-body.js';
import { acceptOf, header, reply, sendJson } from './http-replies.js';
import { HttpSession, STANDALONE_STREAM } from './http-session.js';
import { type OriginGuardOptions, originProblem } from './origin-guard.js';
import { SseWriter } from './sse-writer.js';

export interface StreamableHttpOptions extends OriginGuardOptions {
  /** The MCP endpoint (default `/mcp`). */
  path?: string;
  /** Largest accepted request body in bytes (default 4 MiB); larger -> 413. */
  maxBodyBytes?: number;
  /** A session with nothing running and no open stream for this long is ended (default 30 min). */
  sessionIdleMs?: number;
  /** Events kept per session for `Last-Event-ID` replay (default 1000; oldest forgotten first). */
  maxEventsPerSession?: number;
  /** Bytes of events kept per session for replay (default 16 MiB; oldest forgotten first). */
  maxEventBytesPerSession?: number;
  /** Open sessions at most; an initialize beyond gets 503 (default 10 000). */
  maxSessions?: number;
  /** The `retry` hint (ms) sent on every SSE stream: how soon a client reconnects (default 1000). */
  retryMs?: number;
  /** A comment line this often keeps idle SSE streams alive through proxies (default 15 s; 0 = none). */
  keepAliveMs?: number;
  /**
   * The polling pattern: for a request this returns a number of ms for, its SSE stream is closed
   * after that long (with `retry`) if still running; the client comes back with `Last-Event-ID`.
   */
  pollAfterMs?: (request: JsonRpcRequest) => number | undefined;
  /** Runs before anything else; refuse with 401/403 (see `bearerAuth`). */
  auth?: AuthHook;
}

export interface HttpListenOptions extends StreamableHttpOptions {
  port: number;
  /** Interface to bind (default 127.0.0.1: local clients only). */
  host?: string;
}

export type HttpRequestHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  next?: (error?: unknown) => void,
) => void;

/** A client that takes no stream on its POST still hears the server's requests on its GET stream. */
const isRequest = (message: JsonRpcMessage | JsonRpcMessage[]) =>
  !Array.isArray(message) && 'method' in message && 'id' in message;

/** A response (or a batch of them), as opposed to a notification or a request of the server's. */
const isAnswer = (message: JsonRpcMessage | JsonRpcMessage[]) =>
  Array.isArray(message) || !('method' in message);

export class StreamableHttpTransport {
  readonly #connect: Connect;
  readonly #options: Required<
    Pick<
      StreamableHttpOptions,
      | 'path'
      | 'maxBodyBytes'
      | 'sessionIdleMs'
      | 'maxEventsPerSession'
      | 'maxEventBytesPerSession'
      | 'maxSessions'
      | 'retryMs'
      | 'keepAliveMs'
    >
  > &
    StreamableHttpOptions;
  readonly #sessions = new Map<string, HttpSession>();
  readonly #sweeper: NodeJS.Timeout;
  #server: Server | undefined;
  #accepting = true;

  constructor(connect: Connect, options: StreamableHttpOptions = {}) {
    this.#connect = connect;
    this.#options = {
      path: '/mcp',
      maxBodyBytes: 4 * 1024 * 1024,
      sessionIdleMs: 30 * 60_000,
      maxEventsPerSession: 1000,
      maxEventBytesPerSession: 16 * 1024 * 1024,
      maxSessions: 10_000,
      retryMs: 1000,
      keepAliveMs: 15_000,
      ...options,
    };
    const sweepEvery = Math.max(10, Math.min(this.#options.sessionIdleMs / 2, 30_000));
    this.#sweeper = setInterval(() => this.#expireIdle(), sweepEvery);
    this.#sweeper.unref();
  }

  /** The request handler, for `node:http`, Express (`app.all('/mcp', h)`) or Fastify (`reply.raw`). */
  readonly handle: HttpRequestHandler = (request, response, next) => {
    this.#handle(request, response, next).catch((error) => {
      // Inside a framework its error handler decides what the client sees; alone, a plain 500.
      if (next) return next(error);
      if (!response.headersSent) reply(response, 500, ErrorCode.InternalError, 'Internal error');
      else response.end();
    });
  };

  get sessionCount(): number {
    return this.#sessions.size;
  }

  /** The `node:http` server `listen` created (to share its port with the WebSocket transport). */
  get httpServer(): Server | undefined {
    return this.#server;
  }

  async listen(port: number, host = '127.0.0.1'): Promise<AddressInfo> {
    const server = createServer(this.handle);
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    return server.address() as AddressInfo;
  }

  /** Refuses new requests (503) from now on; running calls finish and their answers are delivered. */
  stopAccepting(): void {
    this.#accepting = false;
  }

  /** Ends every session and stream, and stops listening. */
  async close(): Promise<void> {
    this.#accepting = false;
    clearInterval(this.#sweeper);
    for (const session of this.#sessions.values()) session.close();
    this.#sessions.clear();
    const server = this.#server;
    if (server) {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    }
  }

  async #handle(request: IncomingMessage, response: ServerResponse, next?: (error?: unknown) => void) {
    // Express strips the mount path from `url` under app.use('/mcp', ...); `originalUrl` keeps it.
    const path = (request as IncomingMessage & { originalUrl?: string }).originalUrl ?? request.url ?? '/';
    const url = new URL(path, 'http://localhost');
    if (url.pathname !== this.#options.path) {
      if (next) return next();
      return reply(
        response,
        404,
        ErrorCode.InvalidRequest,
        `Not found: the MCP endpoint is ${this.#options.path}`,
      );
    }
    const problem = originProblem(request.headers, this.#options);
    if (problem) return reply(response, 403, ErrorCode.InvalidRequest, problem);
    if (this.#options.auth) {
      const verdict = await this.#options.auth(request);
      if (verdict !== true) {
        return reply(response, verdict.status, ErrorCode.InvalidRequest, verdict.message, verdict.headers);
      }
    }
    switch (request.method) {
      case 'POST':
        return this.#post(request, response);
      case 'GET':
        return this.#get(request, response);
      case 'DELETE':
        return this.#delete(request, response);
      default:
        return reply(response, 405, ErrorCode.InvalidRequest, `Method ${request.method} not allowed`, {
          allow: 'GET, POST, DELETE',
        });
    }
  }

  async #post(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const accept = acceptOf(request);
    if (!accept.json && !accept.sse) {
      return reply(
        response,
        406,
        ErrorCode.InvalidRequest,
        'Accept must include application/json and text/event-stream',
      );
    }
    const type = request.headers['content-type'] ?? '';
    if (!type.toLowerCase().startsWith('application/json') && !('body' in request)) {
      return reply(response, 415, ErrorCode.InvalidRequest, 'Content-Type must be application/json');
    }
    const body = await readJsonBody(request, this.#options.maxBodyBytes);
    if (body.kind === 'too-large') {
      response.setHeader('connection', 'close');
      return reply(
        response,
        413,
        ErrorCode.InvalidRequest,
        `Request body of ${body.bytes} bytes exceeds the ${this.#options.maxBodyBytes}-byte limit (maxBodyBytes)`,
      );
    }
    if (body.kind === 'parse-error')
      return reply(response, 400, ErrorCode.ParseError, `Parse error: ${body.detail}`);

    const messages = Array.isArray(body.value) ? body.value : [body.value];
    const kinds = messages.map((value) => classify(value));
    const requests = kinds.flatMap((entry) => (entry.kind === 'request' ? [entry.message] : []));
    const isInitialize = requests.some((entry) => entry.method === 'initialize');
    if (requests.length > 0 && !this.#accepting) {
      return reply(
        response,
        503,
        ErrorCode.ShuttingDown,
        'The server is shutting down and takes no new requests',
      );
    }

    let session: HttpSession | undefined;
    if (isInitialize) {
      if (messages.length > 1) {
        return reply(
          response,
          400,
          ErrorCode.InvalidRequest,
          'initialize must be sent alone, not in a batch',
        );
      }
      if (this.#sessions.size >= this.#options.maxSessions) {
        return reply(
          response,
          503,
          ErrorCode.Overloaded,
          `Too many open sessions (${this.#options.maxSessions}, maxSessions); retry later`,
        );
      }
      session = new HttpSession(randomUUID(), this.#connect, {
        maxEvents: this.#options.maxEventsPerSession,
        maxBytes: this.#options.maxEventBytesPerSession,
      });
      this.#sessions.set(session.id, session);
    } else {
      session = this.#sessionOf(request, response);
      if (!session) return;
      if (!this.#versionOk(request, response)) return;
    }
    session.lastSeen = Date.now();

    if (requests.length === 0) {
      response.writeHead(202).end();
      session.connection.receive(body.value);
      return;
    }
    await this.#answer(session, body.value, requests, accept.sse, response);
  }

  /** Runs the requests of one POST and answers as JSON (all done at once) or as an SSE stream. */
  async #answer(
    session: HttpSession,
    value: unknown,
    requests: JsonRpcRequest[],
    acceptsSse: boolean,
    response: ServerResponse,
  ): Promise<void> {
    const buffered: (JsonRpcMessage | JsonRpcMessage[])[] = [];
    let streamId: string | undefined;
    const replyTo = {
      send: (message: JsonRpcMessage | JsonRpcMessage[]) => {
        if (streamId !== undefined) session.send(streamId, message);
        else if (!acceptsSse && isRequest(message)) session.send(STANDALONE_STREAM, message);
        else buffered.push(message);
      },
    };
    const headers = { 'mcp-session-id': session.id };
    let pending = session.connection.receive(value, replyTo);
    // Most calls finish within a turn of the event loop (an inline echo, a list): wait that long, so
    // they get a plain JSON answer instead of the cost of a stream.
    if (pending !== undefined) {
      let done = false;
      pending = pending.then(() => {
        done = true;
      });
      await new Promise((resolve) => setImmediate(resolve));
      if (done) pending = undefined;
    }
    const onlyResponses = buffered.every(isAnswer);
    if (pending === undefined && (onlyResponses || !acceptsSse)) {
      const answer = buffered.find(isAnswer);
      return sendJson(response, 200, (answer && session.connection.encode(answer)) ?? '{}', headers);
    }
    if (!acceptsSse) {
      await pending;
      const answer = buffered.filter(isAnswer);
      const text =
        answer.length === 0
          ? undefined
          : session.connection.encode(answer.length === 1 ? answer[0]! : answer.flat());
      if (text === undefined) return void response.writeHead(202, headers).end();
      return sendJson(response, 200, text, headers);
    }
    const id = session.store.openStream();
    const writer = new SseWriter(response);
    writer.open(headers, this.#options.keepAliveMs);
    writer.prime(session.store.primingId(id), this.#options.retryMs);
    session.attach(id, writer);
    streamId = id;
    for (const message of buffered) session.send(id, message);
    const pollAfter = this.#pollAfter(requests);
    const poll =
      pollAfter === undefined
        ? undefined
        : setTimeout(() => session.release(id, this.#options.retryMs), pollAfter);
    try {
      await pending;
    } finally {
      if (poll) clearTimeout(poll);
      session.finish(id);
    }
  }

  #pollAfter(requests: JsonRpcRequest[]): number | undefined {
    const policy = this.#options.pollAfterMs;
    if (!policy) return undefined;
    const delays = requests.map(policy).filter((ms): ms is number => typeof ms === 'number' && ms >= 0);
    return delays.length === 0 ? undefined : Math.min(...delays);
  }

  #get(request: IncomingMessage, response: ServerResponse): void {
    if (!acceptOf(request).sse) {
      reply(response, 406, ErrorCode.InvalidRequest, 'GET needs Accept: text/event-stream');
      return;
    }
    if (!this.#accepting) {
      reply(response, 503, ErrorCode.ShuttingDown, 'The server is shutting down');
      return;
    }
    const session = this.#sessionOf(request, response);
    if (!session || !this.#versionOk(request, response)) return;
    session.lastSeen = Date.now();
    const lastEventId = header(request, 'last-event-id');
    const headers = { 'mcp-session-id': session.id };
    if (lastEventId === undefined) {
      const writer = new SseWriter(response);
      writer.open(headers, this.#options.keepAliveMs);
      writer.prime(session.store.primingId(STANDALONE_STREAM), this.#options.retryMs);
      session.attach(STANDALONE_STREAM, writer);
      return;
    }
    const resumed = session.store.after(lastEventId);
    if (!resumed) {
      reply(
        response,
        404,
        ErrorCode.InvalidRequest,
        `Unknown Last-Event-ID ${lastEventId}: nothing to resume`,
      );
      return;
    }
    const writer = new SseWriter(response);
    writer.open(headers, this.#options.keepAliveMs);
    for (const event of resumed.events) writer.event(event.id, event.data);
    if (session.store.isFinished(resumed.streamId)) writer.end();
    else session.attach(resumed.streamId, writer);
  }

  #delete(request: IncomingMessage, response: ServerResponse): void {
    const session = this.#sessionOf(request, response);
    if (!session) return;
    this.#sessions.delete(session.id);
    session.close();
    response.writeHead(200).end();
  }

  /** The request's session, or undefined after answering 400 (no header) or 404 (unknown or ended). */
  #sessionOf(request: IncomingMessage, response: ServerResponse): HttpSession | undefined {
    const id = header(request, 'mcp-session-id');
    if (id === undefined) {
      reply(response, 400, ErrorCode.InvalidRequest, 'Missing Mcp-Session-Id header: send initialize first');
      return undefined;
    }
    const session = this.#sessions.get(id);
    if (!session || session.closed) {
      reply(
        response,
        404,
        ErrorCode.InvalidRequest,
        'Session not found: it ended or expired; initialize again',
      );
      return undefined;
    }
    return session;
  }

  /** A missing MCP-Protocol-Version means 2025-03-26; an unsupported one is refused with 400. */
  #versionOk(request: IncomingMessage, response: ServerResponse): boolean {
    const version = header(request, 'mcp-protocol-version');
    if (version === undefined || isSupportedVersion(version)) return true;
    reply(
      response,
      400,
      ErrorCode.InvalidRequest,
      `Unsupported MCP-Protocol-Version ${version}; supported: ${LEGACY_VERSIONS.join(', ')}`,
    );
    return false;
  }

  #expireIdle(): void {
    const cutoff = Date.now() - this.#options.sessionIdleMs;
    for (const [id, session] of this.#sessions) {
      if (session.lastSeen < cutoff && session.idle) {
        this.#sessions.delete(id);
        session.close();
      }
    }
  }
}
