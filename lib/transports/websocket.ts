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
 * - `maxConnections` sockets at most; an upgrade beyond is refused with 503.
 * - Frames above `maxPayload` close the socket (1009), as `ws` enforces; Host/Origin are checked at
 *   the upgrade (DNS rebinding), and a browser Origin must be listed in `allowedOrigins`, even a
 *   local one: a WebSocket has no CORS to stop a page on another local port. No Origin (a client
 *   that is not a browser page) passes.
 * - The `auth` hook runs once, on the upgrade request; the principal it grants is the connection's
 *   for its whole life. When that principal's credentials expire (`expiresAt`), the connection is
 *   closed with 1008 (policy violation, reason "token expired"): its calls are cancelled and a
 *   message arriving after that moment is not served. The client reconnects with a fresh token.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import { checkListenAudience } from '../auth/host-audience.js';
import type { Principal } from '../auth/principal.js';
import { failure, parseError } from '../protocol/json-rpc.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import type { PeerAddress } from '../router/session.js';
import { type AuthHook, callAuthHook, isAccepted } from './bearer-auth.js';
import { type Connect, peerOf } from './connection.js';
import { type OriginGuardOptions, originProblem } from './origin-guard.js';
import { StalledReaderWatch } from './stalled-reader.js';

export interface WebSocketOptions extends OriginGuardOptions {
  /** Largest accepted frame in bytes (default 16 MiB); larger closes the socket with 1009. */
  maxPayload?: number;
  /** Ping interval in ms; a peer silent for a whole interval is dropped (default 30 s; 0 = none). */
  heartbeatMs?: number;
  /** Stop reading from a peer whose unsent output exceeds this many bytes (default 8 MiB). */
  maxBufferedBytes?: number;
  /** Close (1008) a peer that, above maxBufferedBytes, takes nothing for this long (default 30 s). */
  maxStalledMs?: number;
  /** Open sockets at most; an upgrade beyond gets 503 (default 1000). */
  maxConnections?: number;
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

/** The close code and reason of a connection whose principal's credentials expired. */
export const TOKEN_EXPIRED_CLOSE = { code: 1008, reason: 'token expired' } as const;
/** setTimeout's longest delay; a later expiry is waited for in steps. */
const MAX_TIMER_MS = 2_147_483_647;
const logToStderr = (message: string) => process.stderr.write(`${message}\n`);

export class WebSocketTransport {
  readonly #connect: Connect;
  readonly #options: Required<
    Pick<
      WebSocketOptions,
      'maxPayload' | 'heartbeatMs' | 'maxBufferedBytes' | 'maxStalledMs' | 'maxConnections'
    >
  > &
    WebSocketOptions;
  /** Upgrades past the checks whose socket is not open yet (the auth hook may take a while). */
  #upgrading = 0;
  #server: WebSocketServer | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  readonly #alive = new WeakMap<WebSocket, boolean>();
  /** The principal each accepted upgrade request was granted, until its connection opens. */
  readonly #principals = new WeakMap<IncomingMessage, Principal>();

  constructor(connect: Connect, options: WebSocketOptions = {}) {
    this.#connect = connect;
    this.#options = {
      maxPayload: 16 * 1024 * 1024,
      heartbeatMs: 30_000,
      maxBufferedBytes: 8 * 1024 * 1024,
      maxStalledMs: 30_000,
      maxConnections: 1000,
      ...options,
    };
  }

  /** Listens on its own port. */
  async listen(port: number, host = '127.0.0.1'): Promise<AddressInfo> {
    checkListenAudience(this.#options.auth, host, 'WebSocket');
    const server = this.#createServer({ port, host });
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
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

  async close(): Promise<void> {
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    const server = this.#server;
    if (!server) return;
    for (const socket of server.clients) socket.terminate();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  #createServer(where: { port: number; host: string } | { server: Server }): WebSocketServer {
    const server = new WebSocketServer({
      ...where,
      ...(this.#options.path ? { path: this.#options.path } : {}),
      maxPayload: this.#options.maxPayload,
      handleProtocols: (protocols) => (protocols.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
      verifyClient: (info, done) => this.#verify(info.req, done),
    });
    this.#server = server;
    server.on('connection', (socket, request) =>
      this.#accept(socket, this.#principals.get(request), peerOf(request.socket)),
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
    const problem = originProblem(request.headers, this.#options, false);
    if (problem) {
      done(false, 403, problem);
      return;
    }
    const open = (this.#server?.clients.size ?? 0) + this.#upgrading;
    if (open >= this.#options.maxConnections) {
      done(
        false,
        503,
        `Too many WebSocket connections (${open}; maxConnections is ${this.#options.maxConnections}); retry later`,
      );
      return;
    }
    if (!this.#options.auth) {
      done(true);
      return;
    }
    this.#upgrading++;
    Promise.resolve(callAuthHook(this.#options.auth, request, this.#options.logError ?? logToStderr)).then(
      (verdict) => {
        this.#upgrading--;
        if (!isAccepted(verdict)) return done(false, verdict.status, verdict.message, verdict.headers);
        if (verdict !== true) {
          if (isExpired(verdict.principal)) return done(false, 401, 'The token has expired');
          this.#principals.set(request, verdict.principal);
        }
        done(true);
      },
    );
  }

  #accept(socket: WebSocket, principal: Principal | undefined, peer: PeerAddress | undefined): void {
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
          const frame = chunks.length === 1 ? chunks[0]! : textFrame(chunks);
          socket.send(frame, { binary: false }, resumeWhenDrained);
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
    );
    const expiry =
      principal?.expiresAt === undefined ? undefined : closeAtExpiry(socket, principal.expiresAt);
    socket.on('message', (data: RawData, isBinary: boolean) => {
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
        value = JSON.parse(data.toString());
      } catch (error) {
        socket.send(connection.encode(parseError((error as Error).message)) ?? '');
        return;
      }
      connection.receive(value);
    });
    socket.once('close', () => {
      if (expiry) clearTimeout(expiry.timer);
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

/**
 * A text frame's bytes made from its chunks with one encoding pass: `send` of the joined string
 * would copy the whole text into a flat string first, then encode it.
 */
function textFrame(chunks: readonly string[]): Buffer {
  let bytes = 0;
  for (const chunk of chunks) bytes += Buffer.byteLength(chunk);
  const frame = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (const chunk of chunks) at += frame.write(chunk, at);
  return frame;
}

function isExpired(principal: Principal): boolean {
  return principal.expiresAt !== undefined && Date.now() >= principal.expiresAt;
}

/** Closes `socket` with 1008 once `expiresAt` has passed; the timer is cleared when it closes. */
function closeAtExpiry(socket: WebSocket, expiresAt: number): { timer: NodeJS.Timeout } {
  const handle = { timer: undefined as unknown as NodeJS.Timeout };
  const wait = () => {
    const left = expiresAt - Date.now();
    if (left <= 0) {
      socket.close(TOKEN_EXPIRED_CLOSE.code, TOKEN_EXPIRED_CLOSE.reason);
      return;
    }
    handle.timer = setTimeout(wait, Math.min(left, MAX_TIMER_MS));
    handle.timer.unref();
  };
  wait();
  return handle;
}
