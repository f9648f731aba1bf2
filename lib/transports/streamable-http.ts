/**
 * Streamable HTTP on `node:http`, at one endpoint (`/mcp`) that serves both protocol eras.
 *
 * This file is the front door: it finds the endpoint, applies what holds for every request (the
 * optional `auth` hook, Host/Origin checks against DNS rebinding, the body's size limit), and hands
 * each POST to the era its message belongs to (`eraOfPost`):
 * - legacy-http-sessions.ts: sessions, resumable SSE streams, GET and DELETE (2025-11-25 rules);
 * - modern-http-requests.ts: one stateless request per POST, its headers checked against its body,
 *   its stream closed by the client = its call cancelled (2026-07-28 rules).
 * GET and DELETE exist only for legacy sessions. While the server shuts down new requests get 503.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkListenAudience } from '../auth/host-audience.js';
import type { Principal } from '../auth/principal.js';
import type { HealthOptions } from '../health/health-options.js';
import type { HealthRoutes } from '../health/health-routes.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { eraOfPost } from '../protocol/http-era.js';
import type { JsonRpcRequest } from '../protocol/json-rpc.js';
import { markArrival } from './arrival.js';
import { type AuthHook, callAuthHook, isAccepted } from './bearer-auth.js';
import { CallerIdentity, type CallerIdentityOptions } from './caller-identity.js';
import { DEFAULT_MAX_SESSIONS_PER_CALLER } from './caller-sessions.js';
import type { Connect } from './connection.js';
import { type CorsOptions, CorsPolicy } from './cors.js';
import { header, reply } from './http-replies.js';
import { LegacyHttpSessions } from './legacy-http-sessions.js';
import { closeListener, trackSockets } from './listener-close.js';
import { ModernHttpRequests } from './modern-http-requests.js';
import type { ModernRouting } from './modern-request-checks.js';
import { type OriginGuardOptions, originProblem } from './origin-guard.js';
import { readPostedMessage } from './posted-message.js';
import { whenGone } from './request-gone.js';
import { isResourceMetadataPath, serveResourceMetadata } from './resource-metadata-route.js';
import { RightsWatch } from './rights-watch.js';
import { ScopeGate } from './scope-gate.js';

export interface StreamableHttpOptions extends OriginGuardOptions, CallerIdentityOptions {
  /** The MCP endpoint (default `/mcp`). */
  path?: string;
  /** Largest accepted request body in bytes (default: the server's `maxMessageBytes`, 16 MiB); larger -> 413. */
  maxBodyBytes?: number;
  /** A legacy session with nothing running and no open stream for this long is ended (default 30 min). */
  sessionIdleMs?: number;
  /** Events kept per session for `Last-Event-ID` replay (default 1000; oldest forgotten first). */
  maxEventsPerSession?: number;
  /** Bytes of events kept per session for replay (default 16 MiB; oldest forgotten first). */
  maxEventBytesPerSession?: number;
  /**
   * Open sessions at most (default 10 000). When full, an initialize evicts the oldest session that
   * made no request since its own initialize; only a table of sessions in use answers 503.
   */
  maxSessions?: number;
  /**
   * Sessions one caller (its principal, else its peer address) may hold at once (default 1,000).
   * Past it the caller's least recently used idle session is ended; when all are busy, 429.
   */
  maxSessionsPerCaller?: number;
  /** A session that makes no request after initialize is ended after this long (default 10 s). */
  unusedSessionMs?: number;
  /** Bytes of replay events kept across all sessions (default 256 MiB; oldest forgotten first). */
  maxEventBytes?: number;
  /** The `retry` hint (ms) sent on every SSE stream: how soon a client reconnects (default 1000). */
  retryMs?: number;
  /** A comment line this often keeps idle SSE streams alive through proxies (default 15 s; 0 = none). */
  keepAliveMs?: number;
  /**
   * The polling pattern: for a request this returns a number of ms for, its SSE stream is closed
   * after that long (with `retry`) if still running; the client comes back with `Last-Event-ID`.
   */
  pollAfterMs?: (request: JsonRpcRequest) => number | undefined;
  /**
   * Unread bytes past which an SSE reader is watched (default 4 MiB): its stream is cut when it then
   * takes nothing for `maxStreamStalledMs`, or lets further messages pile up past this bound, so a
   * stalled client cannot make the server buffer without bound. One answer larger than the bound
   * goes out whole, to a slow reader too. A 2026-07-28 request is cancelled with its stream; a
   * legacy stream's calls go on (that era's rule) and it may be resumed from the store.
   */
  maxStreamBacklogBytes?: number;
  /** How long an SSE reader over `maxStreamBacklogBytes` may take nothing before its stream is cut (default 30 s). */
  maxStreamStalledMs?: number;
  /**
   * Runs before anything else; refuse with 401/403 (see `bearerAuth`); a hook that throws refuses
   * with 500. A hook that grants a principal binds it to what the request creates: a legacy session
   * (another principal bringing its Mcp-Session-Id gets 404), tasks, requestStates
   * (docs/authorization.md).
   */
  auth?: AuthHook;
  /** Where diagnostics go (the server passes its own `logError`; default stderr). */
  logError?: (message: string) => void;
  /**
   * Browser pages on these origins may call the endpoint: preflights are answered and the MCP
   * headers exposed (cors.ts). None by default, so other origins stay refused.
   */
  cors?: CorsOptions;
  /**
   * Liveness and readiness probes beside the endpoint (`GET /healthz`, `GET /readyz`), answered
   * before auth and every limit; `false` turns them off, `{ livePath, readyPath, port }` moves them
   * or adds a port of their own (docs/deploying.md, "The readiness contract").
   */
  health?: false | HealthOptions;
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

export class StreamableHttpTransport {
  readonly #options: Required<Pick<StreamableHttpOptions, 'path' | 'maxBodyBytes'>> & StreamableHttpOptions;
  readonly #legacy: LegacyHttpSessions;
  readonly #modern: ModernHttpRequests;
  readonly #cors: CorsPolicy;
  /** The origin guard's options, with the CORS origins accepted as well. */
  readonly #guard: StreamableHttpOptions;
  #server: Server | undefined;
  #accepting = true;
  /** The probes this transport answers (absent: off, or a transport built without a server). */
  readonly #health: HealthRoutes | undefined;
  readonly #logError: (message: string) => void;
  /** Re-checks the rights of callers holding a stream open (rights-watch.ts). */
  readonly #rights: RightsWatch;
  /** Who each request's caller is (its principal, else its client's address). */
  readonly #identity: CallerIdentity;

  /**
   * `connect` opens a connection to the server (one per legacy session, one per modern request);
   * `routing` answers what the modern checks ask before a request is dispatched.
   */
  constructor(
    connect: Connect,
    routing: ModernRouting,
    options: StreamableHttpOptions = {},
    health?: HealthRoutes,
  ) {
    this.#options = { path: '/mcp', maxBodyBytes: 4 * 1024 * 1024, ...options };
    this.#health = health;
    this.#cors = new CorsPolicy(options.cors);
    this.#identity = new CallerIdentity(options);
    this.#logError = options.logError ?? ((message) => process.stderr.write(`${message}\n`));
    const allowedOrigins = options.allowedOrigins;
    this.#guard =
      allowedOrigins === 'any' || options.cors === undefined
        ? options
        : { ...options, allowedOrigins: [...(allowedOrigins ?? []), ...options.cors.origins] };
    const keepAliveMs = options.keepAliveMs ?? 15_000;
    const scopes = new ScopeGate(routing, options.auth);
    const reader = {
      maxBacklogBytes: options.maxStreamBacklogBytes ?? 4 * 1024 * 1024,
      maxStalledMs: options.maxStreamStalledMs ?? 30_000,
    };
    this.#legacy = new LegacyHttpSessions(connect, scopes, {
      sessionIdleMs: options.sessionIdleMs ?? 30 * 60_000,
      maxEventsPerSession: options.maxEventsPerSession ?? 1000,
      maxEventBytesPerSession: options.maxEventBytesPerSession ?? 16 * 1024 * 1024,
      maxSessions: options.maxSessions ?? 10_000,
      maxSessionsPerCaller: options.maxSessionsPerCaller ?? DEFAULT_MAX_SESSIONS_PER_CALLER,
      retryMs: options.retryMs ?? 1000,
      keepAliveMs,
      pollAfterMs: options.pollAfterMs,
      unusedSessionMs: options.unusedSessionMs ?? 10_000,
      maxEventBytes: options.maxEventBytes ?? 256 * 1024 * 1024,
      reader,
    });
    this.#rights = new RightsWatch(options.auth, this.#logError);
    this.#modern = new ModernHttpRequests(connect, routing, scopes, {
      keepAliveMs,
      reader,
      watchRights: (request, principal, onLapse) => this.#rights.watch(request, principal, onLapse),
    });
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

  /** Open legacy sessions. */
  get sessionCount(): number {
    return this.#legacy.count;
  }

  /** Modern requests being answered right now (their streams open), listen streams included. */
  get openModernRequests(): number {
    return this.#modern.openCount;
  }

  /** The `node:http` server `listen` created (to share its port with the WebSocket transport). */
  get httpServer(): Server | undefined {
    return this.#server;
  }

  async listen(port: number, host = '127.0.0.1'): Promise<AddressInfo> {
    checkListenAudience(this.#options.auth, host, 'HTTP');
    const server = createServer(this.handle);
    trackSockets(server);
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

  /**
   * Draining: takes no new connection and closes idle keep-alive ones, so a balancer that still
   * tries this replica fails to connect and retries elsewhere; requests on busy connections go on.
   */
  stopListening(): void {
    this.#server?.close();
    this.#server?.closeIdleConnections();
  }

  /** Ends every session and stream (cancelling modern requests still running), and stops listening. */
  async close(): Promise<void> {
    this.#accepting = false;
    this.#legacy.close();
    this.#modern.close();
    // Half-open requests and upgraded sockets included: a connection never holds the stop.
    if (this.#server) await closeListener(this.#server);
  }

  async #handle(request: IncomingMessage, response: ServerResponse, next?: (error?: unknown) => void) {
    // Express strips the mount path from `url` under app.use('/mcp', ...); `originalUrl` keeps it.
    const path = (request as IncomingMessage & { originalUrl?: string }).originalUrl ?? request.url ?? '/';
    const url = new URL(path, 'http://localhost');
    // Probes first: a balancer has no token, no Origin, and must not count against any caller.
    if (this.#health?.serve(url.pathname, request, response)) return;
    markArrival(request); // a deadline counts from here (arrival.ts)
    // RFC 9728 discovery, beside the endpoint: the auth hook describes the resource it protects.
    const auth = this.#options.auth;
    if (auth?.resourceMetadata && isResourceMetadataPath(url.pathname, this.#options.path)) {
      return serveResourceMetadata(auth, request, response, this.#options.path, this.#cors);
    }
    if (url.pathname !== this.#options.path) {
      if (next) return next();
      return reply(
        response,
        404,
        ErrorCode.InvalidRequest,
        `Not found: the MCP endpoint is ${this.#options.path}`,
      );
    }
    this.#cors.decorate(request, response);
    const problem = originProblem(request.headers, this.#guard);
    if (problem) return reply(response, 403, ErrorCode.InvalidRequest, problem);
    // A preflight carries no credentials: it is answered before the auth hook runs.
    if (CorsPolicy.isPreflight(request)) return this.#cors.answerPreflight(request, response);
    // Who is calling, when the hook says: it travels with every message of this request.
    let principal: Principal | undefined;
    if (this.#options.auth) {
      this.#identity.arrive(request);
      const answer = callAuthHook(this.#options.auth, request, this.#logError);
      // A verdict given at once (a cached token) goes on in the same turn.
      const verdict = answer instanceof Promise ? await answer : answer;
      if (!isAccepted(verdict)) {
        return reply(response, verdict.status, ErrorCode.InvalidRequest, verdict.message, verdict.headers);
      }
      if (verdict !== true) principal = verdict.principal;
    }
    // Worked out once, here: every bound and share downstream counts this caller.
    const caller = this.#identity.of(request, principal);
    switch (request.method) {
      case 'POST':
        return this.#post(request, response, principal, caller);
      case 'GET':
        this.#legacy.get(request, response, this.#accepting, principal);
        // A GET stream lives as long as the client keeps it: it ends when the caller's rights lapse,
        // so a revoked token stops hearing the session, and the session can go idle and expire.
        if (!response.writableEnded) {
          response.once(
            'close',
            this.#rights.watch(request, principal, () => response.end()),
          );
        }
        return;
      case 'DELETE':
        return this.#legacy.delete(request, response, principal);
      default:
        return reply(response, 405, ErrorCode.InvalidRequest, `Method ${request.method} not allowed`, {
          allow: 'GET, POST, DELETE',
        });
    }
  }

  async #post(
    request: IncomingMessage,
    response: ServerResponse,
    principal: Principal | undefined,
    caller: string | undefined,
  ): Promise<void> {
    const posted = await readPostedMessage(request, response, this.#options.maxBodyBytes);
    if (!posted) return;
    const { body, acceptsSse } = posted;
    if (eraOfPost(body, header(request, 'mcp-protocol-version')) === 'modern') {
      return this.#modern.post(request, response, body, acceptsSse, this.#accepting, principal, caller);
    }
    // A legacy POST's SSE stream lasts as long as its calls run: it ends, as a GET stream does, when
    // the caller's rights lapse (its events stay in the session's store, for a client that comes
    // back with a valid token and Last-Event-ID). A JSON answer closes first and stops the watch.
    if (acceptsSse) {
      const stopWatching = this.#rights.watch(request, principal, () => response.end());
      whenGone(request, response, stopWatching);
    }
    return this.#legacy.post(request, response, body, acceptsSse, this.#accepting, principal, caller);
  }
}
