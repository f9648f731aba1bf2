/**
 * Streamable HTTP for the legacy era (the rules of 2025-11-25): sessions, resumable streams, GET and
 * DELETE.
 *
 * - POST carries one message (or a 2025-03-26 batch). Notifications and responses get 202. A request
 *   answered at once gets `application/json`; one still running gets an SSE stream carrying its
 *   notifications (progress, logs, requests to the client) and then its response.
 * - `initialize` mints an `Mcp-Session-Id`; every later request must carry it (unknown -> 404,
 *   missing -> 400); DELETE ends the session; idle sessions expire. With an auth hook that grants
 *   principals, a session belongs to the principal that initialized it: the id brought by another
 *   principal is answered 404 exactly as an unknown one, so a leaked id is no capability. A session
 *   that made no request after its initialize is *unused*: it expires after `unusedSessionMs`
 *   (seconds, not the idle timeout), and when `maxSessions` is reached the least recently created
 *   unused one is evicted to make room, so a flood of bare initializes cannot keep real clients out;
 *   then the least recently used idle session of the caller holding the most is ended, so callers
 *   that filled the table never keep one more out. Only a table full of sessions in use refuses
 *   (503). One caller (caller-identity.ts: principal, else client address) holds at most
 *   `maxSessionsPerCaller`: its least recently used idle one is ended to make room, and when all of
 *   them are busy its initialize is refused (429; caller-sessions.ts).
 * - A POST whose principal lacks the scopes of what it calls gets 403 (scope-gate.ts), unrun.
 * - Replay events are bounded per session and across all sessions (`maxEventBytes`, oldest first);
 *   an SSE reader that stops reading (more than `maxStreamBacklogBytes` unread and nothing taken for
 *   `maxStreamStalledMs`) has its stream cut (its calls go on, per this era's rules, and it may
 *   resume from the store); one answer larger than the bound is never cut.
 * - GET opens the standalone stream, or with `Last-Event-ID` resumes any stream of the session from
 *   the event store. A stream may also be closed on purpose mid-call (`retry`, then close: the
 *   polling pattern), so long calls need not hold a connection open.
 * - A client that vanishes mid-call does not cancel it (the spec says so for this era); its answer
 *   waits in the event store. `notifications/cancelled` does cancel.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Principal, samePrincipal } from '../auth/principal.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { classify, type JsonRpcMessage, type JsonRpcRequest } from '../protocol/json-rpc.js';
import { isSupportedVersion, LEGACY_VERSIONS } from '../protocol/versions.js';
import { AnswerBuffers } from './answer-buffers.js';
import { arrivalOf } from './arrival.js';
import { CallerSessions } from './caller-sessions.js';
import { type Connect, peerOf } from './connection.js';
import { ReplayBudget } from './event-store.js';
import { acceptOf, header, reply, sendJsonChunks } from './http-replies.js';
import { HttpSession, STANDALONE_STREAM } from './http-session.js';
import { settlesWithinOneTurn } from './posted-message.js';
import { type ScopeGate, sendScopeRefusal } from './scope-gate.js';
import { SseWriter } from './sse-writer.js';
import type { ReaderBounds } from './stalled-reader.js';

export interface LegacyHttpOptions {
  sessionIdleMs: number;
  maxEventsPerSession: number;
  maxEventBytesPerSession: number;
  maxSessions: number;
  maxSessionsPerCaller: number;
  retryMs: number;
  keepAliveMs: number;
  pollAfterMs: ((request: JsonRpcRequest) => number | undefined) | undefined;
  unusedSessionMs: number;
  maxEventBytes: number;
  /** When an SSE reader has stopped reading (stalled-reader.ts). */
  reader: ReaderBounds;
}

/** A client that takes no stream on its POST still hears the server's requests on its GET stream. */
const isRequest = (message: JsonRpcMessage | JsonRpcMessage[]) =>
  !Array.isArray(message) && 'method' in message && 'id' in message;

/** A response (or a batch of them), as opposed to a notification or a request of the server's. */
const isAnswer = (message: JsonRpcMessage | JsonRpcMessage[]) =>
  Array.isArray(message) || !('method' in message);

export class LegacyHttpSessions {
  readonly #connect: Connect;
  readonly #scopes: ScopeGate;
  readonly #options: LegacyHttpOptions;
  readonly #sessions = new Map<string, HttpSession>();
  /** Sessions that made no request since initialize, oldest first (Map keeps insertion order). */
  readonly #unused = new Map<string, HttpSession>();
  readonly #budget: ReplayBudget;
  readonly #perCaller: CallerSessions;
  readonly #sweeper: NodeJS.Timeout;
  /** Large answers' memory, shared by every session's frames and replies (answer-buffers.ts). */
  readonly #buffers = new AnswerBuffers();

  constructor(connect: Connect, scopes: ScopeGate, options: LegacyHttpOptions) {
    this.#connect = connect;
    this.#scopes = scopes;
    this.#options = options;
    this.#budget = new ReplayBudget(options.maxEventBytes);
    this.#perCaller = new CallerSessions(options.maxSessionsPerCaller);
    const sweepEvery = Math.max(10, Math.min(options.sessionIdleMs / 2, options.unusedSessionMs / 2, 30_000));
    this.#sweeper = setInterval(() => this.#expireIdle(), sweepEvery);
    this.#sweeper.unref();
  }

  get count(): number {
    return this.#sessions.size;
  }

  /** Ends every session and its streams. */
  close(): void {
    clearInterval(this.#sweeper);
    for (const session of this.#sessions.values()) session.close();
    this.#sessions.clear();
    this.#unused.clear();
    this.#perCaller.clear();
    this.#buffers.close();
  }

  /** Serves one POST whose body (already read and parsed) belongs to the legacy era. */
  async post(
    request: IncomingMessage,
    response: ServerResponse,
    body: unknown,
    acceptsSse: boolean,
    accepting: boolean,
    principal?: Principal,
    caller?: string,
  ): Promise<void> {
    const messages = Array.isArray(body) ? body : [body];
    const kinds = messages.map((value) => classify(value));
    const requests = kinds.flatMap((entry) => (entry.kind === 'request' ? [entry.message] : []));
    const isInitialize = requests.some((entry) => entry.method === 'initialize');
    if (requests.length > 0 && !accepting) {
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
      // A socket already gone has no address: such initializes share one caller.
      const owner = caller ?? 'address unknown';
      const held = this.#perCaller.makeRoom(owner, (old) => this.#end(old));
      if (held !== undefined) {
        return reply(
          response,
          429,
          ErrorCode.LimitExceeded,
          `Too many sessions for this caller: it holds ${held} (maxSessionsPerCaller), all busy; end one (DELETE) or retry later`,
          { 'retry-after': '1' },
        );
      }
      if (this.#sessions.size >= this.#options.maxSessions) this.#evictOneUnused();
      // Still full: the newcomer takes the least recently used idle session of the biggest holder,
      // so callers that filled the table cannot keep one more out (caller-sessions.ts).
      if (this.#sessions.size >= this.#options.maxSessions) {
        const taken = this.#perCaller.idleOfBiggestHolder(owner);
        if (taken !== undefined) this.#end(taken);
      }
      if (this.#sessions.size >= this.#options.maxSessions) {
        return reply(
          response,
          503,
          ErrorCode.Overloaded,
          `Too many open sessions (${this.#options.maxSessions}, maxSessions); retry later`,
        );
      }
      session = new HttpSession(
        randomUUID(),
        this.#connect,
        {
          maxEvents: this.#options.maxEventsPerSession,
          maxBytes: this.#options.maxEventBytesPerSession,
          budget: this.#budget,
          reader: this.#options.reader,
          buffers: this.#buffers,
        },
        principal,
        peerOf(request.socket),
        owner,
      );
      this.#sessions.set(session.id, session);
      this.#unused.set(session.id, session);
      this.#perCaller.add(owner, session);
    } else {
      session = this.#sessionOf(request, response, principal);
      if (!session) return;
      if (!this.#versionOk(request, response)) return;
      const forbidden = this.#scopes.refusal(principal, requests, request);
      if (forbidden) return sendScopeRefusal(response, forbidden);
      if (requests.length > 0) this.#markUsed(session);
    }
    session.lastSeen = Date.now();
    this.#perCaller.touch(session);

    if (requests.length === 0) {
      response.writeHead(202).end();
      session.connection.receive(body, undefined, arrivalOf(request));
      return;
    }
    await this.#answer(session, body, requests, acceptsSse, response);
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
    let pending = session.connection.receive(value, replyTo, arrivalOf(response.req));
    if (pending !== undefined && (await settlesWithinOneTurn(pending))) pending = undefined;
    const onlyResponses = buffered.every(isAnswer);
    if (pending === undefined && (onlyResponses || !acceptsSse)) {
      const answer = buffered.find(isAnswer);
      const chunks = answer && session.connection.encodeChunks(answer);
      return sendJsonChunks(response, 200, chunks ?? ['{}'], headers, this.#buffers);
    }
    if (!acceptsSse) {
      await pending;
      const answer = buffered.filter(isAnswer);
      const chunks =
        answer.length === 0
          ? undefined
          : session.connection.encodeChunks(answer.length === 1 ? answer[0]! : answer.flat());
      if (chunks === undefined) return void response.writeHead(202, headers).end();
      return sendJsonChunks(response, 200, chunks, headers, this.#buffers);
    }
    const id = session.store.openStream();
    const writer = new SseWriter(response, this.#buffers);
    writer.open(headers, this.#options.keepAliveMs);
    session.prime(writer, id, this.#options.retryMs);
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

  get(request: IncomingMessage, response: ServerResponse, accepting: boolean, principal?: Principal): void {
    if (!acceptOf(request).sse) {
      reply(response, 406, ErrorCode.InvalidRequest, 'GET needs Accept: text/event-stream');
      return;
    }
    if (!accepting) {
      reply(response, 503, ErrorCode.ShuttingDown, 'The server is shutting down');
      return;
    }
    const session = this.#sessionOf(request, response, principal);
    if (!session || !this.#versionOk(request, response)) return;
    session.lastSeen = Date.now();
    this.#perCaller.touch(session);
    this.#markUsed(session);
    const lastEventId = header(request, 'last-event-id');
    const headers = { 'mcp-session-id': session.id };
    if (lastEventId === undefined) {
      const writer = new SseWriter(response, this.#buffers);
      writer.open(headers, this.#options.keepAliveMs);
      session.prime(writer, STANDALONE_STREAM, this.#options.retryMs);
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
    const writer = new SseWriter(response, this.#buffers);
    writer.open(headers, this.#options.keepAliveMs);
    for (const event of resumed.events) writer.frame(event.frame);
    if (session.store.isFinished(resumed.streamId)) session.endDelivered(resumed.streamId, writer);
    else session.attach(resumed.streamId, writer);
  }

  delete(request: IncomingMessage, response: ServerResponse, principal?: Principal): void {
    const session = this.#sessionOf(request, response, principal);
    if (!session) return;
    this.#end(session);
    response.writeHead(200).end();
  }

  /**
   * The request's session, or undefined after answering 400 (no header) or 404 (unknown, ended, or
   * another principal's: the same answer, so the id's existence is not revealed).
   */
  #sessionOf(
    request: IncomingMessage,
    response: ServerResponse,
    principal: Principal | undefined,
  ): HttpSession | undefined {
    const id = header(request, 'mcp-session-id');
    if (id === undefined) {
      reply(response, 400, ErrorCode.InvalidRequest, 'Missing Mcp-Session-Id header: send initialize first');
      return undefined;
    }
    const session = this.#sessions.get(id);
    if (!session || session.closed || !samePrincipal(session.principal, principal)) {
      reply(
        response,
        404,
        ErrorCode.InvalidRequest,
        'Session not found: it ended or expired; initialize again',
      );
      return undefined;
    }
    // The same caller, perhaps with a fresh token (more scopes after a step-up, a later expiry).
    session.connection.session.renewPrincipal(principal);
    // This request's socket, read by telemetry as the request enters the router (synchronously).
    session.connection.session.peer = peerOf(request.socket);
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

  #markUsed(session: HttpSession): void {
    if (session.used) return;
    session.used = true;
    this.#unused.delete(session.id);
  }

  #end(session: HttpSession): void {
    this.#sessions.delete(session.id);
    this.#unused.delete(session.id);
    this.#perCaller.remove(session);
    session.close();
  }

  /** Makes room for a new client: ends the oldest session that made no request since initialize. */
  #evictOneUnused(): void {
    for (const session of this.#unused.values()) {
      if (!session.idle) continue;
      this.#end(session);
      return;
    }
  }

  #expireIdle(): void {
    const now = Date.now();
    const cutoff = now - this.#options.sessionIdleMs;
    for (const session of this.#sessions.values()) {
      if (session.lastSeen < cutoff && session.idle) this.#end(session);
    }
    const unusedCutoff = now - this.#options.unusedSessionMs;
    for (const session of this.#unused.values()) {
      if (session.lastSeen < unusedCutoff && session.idle) this.#end(session);
    }
  }
}
