/**
 * The WebSocket transport: one JSON-RPC message per text frame, subprotocol `mcp` (what the
 * official SDK's WebSocketClientTransport asks for), one server connection per socket.
 *
 * - A closed or dead socket closes its connection, which cancels its in-flight calls: unlike HTTP,
 *   nothing can come back to collect an answer, so blocking work is stopped rather than wasted.
 * - Heartbeat: a ping every `heartbeatMs`; a peer that did not answer the previous one is dropped.
 * - Backpressure: when a peer reads too slowly and its outgoing buffer passes `maxBufferedBytes`,
 *   the server stops reading from it (so it cannot queue more work) until the buffer drains. A peer
 *   that, above that bound, takes nothing for `maxStalledMs` is closed (1008) and its calls
 *   cancelled: a reader that never reads would otherwise hold its memory and its work forever. A
 *   peer that keeps reading is never closed, however large an answer and however slow the peer.
 * - Shared fairly: `maxConnectionsPerCaller` sockets per caller (caller-identity.ts: principal,
 *   else client address), beyond that 429; `maxConnections` sockets in all, and when they are all
 *   open a newcomer's upgrade closes the oldest socket of the caller holding the most (1013, "try
 *   again later") rather than being refused while one caller holds most of them. Only when no
 *   caller holds more than the newcomer would is the upgrade refused with 503.
 * - Frames above `maxPayload` close the socket (1009), as `ws` enforces; Host/Origin are checked at
 *   the upgrade (DNS rebinding), and a browser Origin must be listed in `allowedOrigins`, even a
 *   local one: a WebSocket has no CORS to stop a page on another local port. No Origin (a client
 *   that is not a browser page) passes.
 * - The `auth` hook runs on the upgrade request; the principal it grants is the connection's. Its
 *   rights are re-checked for as long as the socket is open (rights-watch.ts): when its credentials
 *   expire (`expiresAt`) the connection is closed with 1008 (policy violation, reason "token
 *   expired"); when the hook refuses them again (a revoked token, seen within the revocation
 *   window), with 1008 and the refusal as reason, or 1013 (try again later) when the token cannot
 *   be checked now. Its calls are cancelled and a message arriving after that is not served. The
 *   client reconnects with a fresh token.
 */
import { createServer, type IncomingMessage, type Server, STATUS_CODES } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import { checkListenAudience } from '../auth/host-audience.js';
import type { Principal } from '../auth/principal.js';
import { CallerShares } from '../caller-shares.js';
import { failure, parseError } from '../protocol/json-rpc.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import type { PeerAddress } from '../router/session.js';
import { AnswerBuffers } from './answer-buffers.js';
import { type AuthHook, callAuthHook, isAccepted } from './bearer-auth.js';
import { CallerIdentity, type CallerIdentityOptions } from './caller-identity.js';
import { answerPayload, wholePayload } from './chunk-bytes.js';
import { type Connect, peerOf } from './connection.js';
import { closeListener, trackSockets } from './listener-close.js';
import { type OriginGuardOptions, originProblem } from './origin-guard.js';
import { RightsWatch } from './rights-watch.js';
import { StalledReaderWatch } from './stalled-reader.js';
import { utf8Text } from './utf8-text.js';
import { closeFor, isExpired, MADE_ROOM_CLOSE, TOKEN_EXPIRED_CLOSE } from './websocket-closes.js';

export { MADE_ROOM_CLOSE, TOKEN_EXPIRED_CLOSE } from './websocket-closes.js';

export interface WebSocketOptions extends OriginGuardOptions, CallerIdentityOptions {
  /** Largest accepted frame in bytes (default 16 MiB); larger closes the socket with 1009. */
  maxPayload?: number;
  /** Ping interval in ms; a peer silent for a whole interval is dropped (default 30 s; 0 = none). */
  heartbeatMs?: number;
  /** Stop reading from a peer whose unsent output exceeds this many bytes (default 8 MiB). */
  maxBufferedBytes?: number;
  /** Close (1008) a peer that, above maxBufferedBytes, takes nothing for this long (default 30 s). */
  maxStalledMs?: number;
  /**
   * Open sockets at most (default 1000); when full, an upgrade takes the oldest socket of the caller
   * holding the most, and gets 503 only when no caller holds more than it would.
   */
  maxConnections?: number;
  /** Open sockets of one caller at most (default 100, a tenth of maxConnections); beyond, 429. */
  maxConnectionsPerCaller?: number;
  /** Only upgrade requests for this path (default: any path). */
  path?: string;
  auth?: AuthHook;
  /** Where diagnostics go (the server passes its own `logError`; default stderr). */
  logError?: (message: string) => void;
}

export interface WebSocketListenOptions extends WebSocketOptions {
  port: number;
  /** Interface to bind (default 127.0.0.1). */
  host?: string;
}

const SUBPROTOCOL = 'mcp';

/** Sockets one caller may hold at once (the default of `maxConnectionsPerCaller`). */
export const DEFAULT_MAX_CONNECTIONS_PER_CALLER = 100;
const logToStderr = (message: string) => process.stderr.write(`${message}\n`);

export class WebSocketTransport {
  readonly #connect: Connect;
  readonly #options: Required<
    Pick<
      WebSocketOptions,
      | 'maxPayload'
      | 'heartbeatMs'
      | 'maxBufferedBytes'
      | 'maxStalledMs'
      | 'maxConnections'
      | 'maxConnectionsPerCaller'
    >
  > &
    WebSocketOptions;
  /** Upgrades past the checks whose socket is not open yet (the auth hook may take a while). */
  #upgrading = 0;
  #server: WebSocketServer | undefined;
  /** The HTTP server of its own port, when it has one (a shared one is closed by its owner). */
  #ownServer: Server | undefined;
  /** Shutdown began: upgrades are refused (503), as HTTP refuses new requests. */
  #stopped = false;
  #heartbeat: NodeJS.Timeout | undefined;
  readonly #alive = new WeakMap<WebSocket, boolean>();
  /** The principal each accepted upgrade request was granted, until its connection opens. */
  readonly #principals = new WeakMap<IncomingMessage, Principal>();
  readonly #rights: RightsWatch;
  /** The caller key of each accepted upgrade request, until its connection opens. */
  readonly #callers = new WeakMap<IncomingMessage, string>();
  /** Who each open socket belongs to, for the per-caller share and making room at the cap. */
  readonly #shares = new CallerShares<WebSocket>();
  readonly #identity: CallerIdentity;
  /** Sockets closed to make room whose close has not completed: their room is already given away. */
  #makingRoom = 0;
  /** Large answers' memory, back once a socket has sent their frame (answer-buffers.ts). */
  readonly #buffers = new AnswerBuffers();

  constructor(connect: Connect, options: WebSocketOptions = {}) {
    this.#connect = connect;
    this.#options = {
      maxPayload: 16 * 1024 * 1024,
      heartbeatMs: 30_000,
      maxBufferedBytes: 8 * 1024 * 1024,
      maxStalledMs: 30_000,
      maxConnections: 1000,
      maxConnectionsPerCaller: DEFAULT_MAX_CONNECTIONS_PER_CALLER,
      ...options,
    };
    this.#rights = new RightsWatch(options.auth, options.logError ?? logToStderr);
    this.#identity = new CallerIdentity(options);
  }

  /** Listens on its own port. */
  async listen(port: number, host = '127.0.0.1'): Promise<AddressInfo> {
    checkListenAudience(this.#options.auth, host, 'WebSocket');
    // Its own HTTP server rather than the one `ws` would make, so that closing can end its
    // connections (a half-open request would otherwise hold the close: listener-close.ts).
    const server = createServer((_request, response) => {
      const body = STATUS_CODES[426]!;
      response.writeHead(426, { 'content-type': 'text/plain', 'content-length': body.length }).end(body);
    });
    trackSockets(server);
    this.#ownServer = server;
    this.#createServer({ server });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    return server.address() as AddressInfo;
  }

  /** Shares an existing `node:http` server (e.g. the one serving Streamable HTTP). */
  attach(server: Server): void {
    this.#createServer({ server });
  }

  get clientCount(): number {
    return this.#server?.clients.size ?? 0;
  }

  /** The first step of shutdown: upgrades are refused from now on (open sockets are served). */
  stopAccepting(): void {
    this.#stopped = true;
  }

  async close(): Promise<void> {
    this.#stopped = true;
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    this.#buffers.close();
    const server = this.#server;
    if (!server) return;
    for (const socket of server.clients) socket.terminate();
    await Promise.all([
      new Promise<void>((resolve) => server.close(() => resolve())),
      this.#ownServer && closeListener(this.#ownServer),
    ]);
  }

  #createServer(where: { server: Server }): WebSocketServer {
    const server = new WebSocketServer({
      ...where,
      ...(this.#options.path ? { path: this.#options.path } : {}),
      maxPayload: this.#options.maxPayload,
      handleProtocols: (protocols) => (protocols.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
      verifyClient: (info, done) => this.#verify(info.req, done),
    });
    this.#server = server;
    server.on('connection', (socket, request) =>
      this.#accept(socket, request, this.#principals.get(request), this.#callers.get(request)),
    );
    if (this.#options.heartbeatMs > 0) {
      this.#heartbeat = setInterval(() => this.#beat(server), this.#options.heartbeatMs);
      this.#heartbeat.unref();
    }
    return server;
  }

  #verify(
    request: IncomingMessage,
    done: (ok: boolean, code?: number, message?: string, headers?: Record<string, string>) => void,
  ): void {
    if (this.#stopped) {
      done(false, 503, 'The server is shutting down; connect again once it is back');
      return;
    }
    const problem = originProblem(request.headers, this.#options, false);
    if (problem) {
      done(false, 403, problem);
      return;
    }
    if (!this.#options.auth) {
      this.#admit(request, undefined, done);
      return;
    }
    // Even full, an upgrade is authenticated first: who it is decides whether it may take room.
    this.#upgrading++;
    this.#identity.arrive(request);
    Promise.resolve(callAuthHook(this.#options.auth, request, this.#options.logError ?? logToStderr)).then(
      (verdict) => {
        this.#upgrading--;
        if (!isAccepted(verdict)) return done(false, verdict.status, verdict.message, verdict.headers);
        if (verdict !== true && isExpired(verdict.principal))
          return done(false, 401, 'The token has expired');
        this.#admit(request, verdict === true ? undefined : verdict.principal, done);
      },
    );
  }

  /** Lets the upgrade of `principal`'s caller in if its share and the server's capacity allow. */
  #admit(
    request: IncomingMessage,
    principal: Principal | undefined,
    done: (ok: boolean, code?: number, message?: string, headers?: Record<string, string>) => void,
  ): void {
    const caller = this.#identity.of(request, principal) ?? 'address unknown';
    const mine = this.#shares.countOf(caller);
    if (mine >= this.#options.maxConnectionsPerCaller) {
      done(
        false,
        429,
        `Too many WebSocket connections for this caller (${mine}; maxConnectionsPerCaller is ${this.#options.maxConnectionsPerCaller}); close one before opening another`,
        { 'retry-after': '1' },
      );
      return;
    }
    const open = (this.#server?.clients.size ?? 0) + this.#upgrading - this.#makingRoom;
    if (open >= this.#options.maxConnections) {
      const taken = this.#shares.oldestOfBiggestHolder(caller);
      if (taken === undefined) {
        done(
          false,
          503,
          `Too many WebSocket connections (${open}; maxConnections is ${this.#options.maxConnections}); retry later`,
        );
        return;
      }
      // Its calls are cancelled now; the socket is cut if its peer does not answer the close.
      this.#shares.remove(taken);
      this.#makingRoom++;
      taken.once('close', () => this.#makingRoom--);
      taken.close(MADE_ROOM_CLOSE.code, MADE_ROOM_CLOSE.reason);
      setTimeout(() => taken.terminate(), 1000).unref();
    }
    if (principal !== undefined) this.#principals.set(request, principal);
    this.#callers.set(request, caller);
    done(true);
  }

  #accept(
    socket: WebSocket,
    request: IncomingMessage,
    principal: Principal | undefined,
    caller: string | undefined,
  ): void {
    const peer: PeerAddress | undefined = peerOf(request.socket);
    if (caller !== undefined) this.#shares.add(caller, socket);
    this.#alive.set(socket, true);
    socket.on('pong', () => this.#alive.set(socket, true));
    let paused = false;
    const resumeWhenDrained = () => {
      if (paused && socket.bufferedAmount <= this.#options.maxBufferedBytes / 2) {
        paused = false;
        socket.resume();
      }
    };
    // Above the bound and taking nothing for maxStalledMs: the peer is not reading. Its calls are
    // cancelled now; the close frame waits behind the unread output, so the socket is cut a moment
    // later. No byte rule: reading is paused above the bound, so only calls in flight add output.
    const dropStalled = () => {
      if (socket.readyState !== socket.OPEN) return;
      connection.close();
      socket.close(1008, 'the peer did not read its messages (maxStalledMs)');
      setTimeout(() => socket.terminate(), 1000).unref();
    };
    const watch = new StalledReaderWatch(
      () => socket.bufferedAmount,
      { maxBacklogBytes: this.#options.maxBufferedBytes, maxStalledMs: this.#options.maxStalledMs },
      dropStalled,
      false,
    );
    const connection = this.#connect(
      {
        send: (message) => {
          if (socket.readyState !== socket.OPEN) return;
          const chunks = connection.encodeChunks(message);
          if (chunks === undefined) return;
          const buffers = this.#buffers;
          const frame = wholePayload(answerPayload(chunks, '', buffers));
          // ws calls back once the frame is on the socket (or failed): its memory is unread from then.
          socket.send(frame, { binary: false }, (error) => {
            if (!error) buffers.release(frame);
            resumeWhenDrained();
          });
          watch.wrote(frame.length);
          if (!paused && socket.bufferedAmount > this.#options.maxBufferedBytes) {
            paused = true;
            socket.pause();
          }
        },
        backlogBytes: () => socket.bufferedAmount,
      },
      undefined,
      principal,
      peer,
      caller,
    );
    let lapsed = false;
    const stopWatching = this.#rights.watch(request, principal, (lapse) => {
      lapsed = true;
      // Its calls stop now, not once the peer has answered the close frame.
      connection.close();
      const { code, reason } = closeFor(lapse);
      socket.close(code, reason);
    });
    socket.on('message', (data: RawData, isBinary: boolean) => {
      const arrivedAt = performance.now();
      if (lapsed) return;
      if (principal !== undefined && isExpired(principal)) {
        socket.close(TOKEN_EXPIRED_CLOSE.code, TOKEN_EXPIRED_CLOSE.reason);
        return;
      }
      if (isBinary) {
        const refusal = failure(null, ProtocolError.invalidRequest('Send JSON-RPC messages as text frames'));
        socket.send(connection.encode(refusal) ?? '');
        return;
      }
      let value: unknown;
      try {
        value = JSON.parse(utf8Text(data as Buffer)); // ws gives a Buffer: binaryType stays 'nodebuffer'
      } catch (error) {
        socket.send(connection.encode(parseError((error as Error).message)) ?? '');
        return;
      }
      connection.receive(value, undefined, arrivedAt);
    });
    socket.once('close', () => {
      stopWatching();
      this.#shares.remove(socket);
      watch.stop();
      connection.close();
    });
    socket.on('error', () => socket.terminate());
  }

  #beat(server: WebSocketServer): void {
    for (const socket of server.clients) {
      // A peer we stopped reading from cannot have its pong read either; backpressure, not death.
      if (socket.isPaused) continue;
      if (this.#alive.get(socket) === false) {
        socket.terminate();
        continue;
      }
      this.#alive.set(socket, false);
      socket.ping();
    }
  }
}
