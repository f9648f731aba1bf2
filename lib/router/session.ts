/**
 * One client's view of the server: what it negotiated, what it declared it can do, what log level
 * it asked for, and which of its requests are still running (so they can be cancelled, and so a
 * duplicate id is refused instead of two answers going out under one id).
 *
 * A transport opens a session per connection (stdio, a WebSocket), per Mcp-Session-Id (legacy
 * HTTP) or per request (modern HTTP). What it negotiated belongs to the legacy era alone: a
 * 2026-07-28 request brings its own version, capabilities and log level (RequestScope) and leaves
 * nothing here but its in-flight id, for cancels and duplicate checks.
 */
import { type Principal, samePrincipal } from '../auth/principal.js';
import { Cancellation, type CancelReason } from '../engine/cancellation.js';
import type { JsonRpcMessage, JsonRpcResponse, RequestId } from '../protocol/json-rpc.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import type { LegacyVersion } from '../protocol/versions.js';
import { ClientRequestTable } from './client-request-table.js';

export interface MessageSink {
  send(message: JsonRpcMessage | JsonRpcMessage[]): void;
  /**
   * Bytes handed to this sink that the transport has not yet got out (its outbox and the socket's
   * buffer), where it can tell. Long-lived streams hold their notifications back while it is large.
   */
  backlogBytes?(): number;
}

/**
 * Where a peer's socket comes from (its remote address and port), as the transport saw it at its
 * door: telemetry's `client.address` / `client.port`. Absent for stdio and in-process peers.
 */
export interface PeerAddress {
  readonly address: string;
  readonly port: number;
}

export class Session {
  protocolVersion: LegacyVersion | undefined;
  clientCapabilities: Record<string, unknown> = {};
  clientInfo: Record<string, unknown> | undefined;
  initialized = false;
  /** Index into LOG_LEVELS of the least severe level to send; 0 sends everything. */
  minLogLevel = 0;
  /**
   * Resource URIs this client subscribed to with `resources/subscribe`, each with what releases
   * its upstream subscription (a mounted resource's) when the client unsubscribes or leaves.
   */
  readonly subscriptions = new Map<string, () => void>();
  readonly #inFlight = new Map<RequestId, Cancellation>();
  readonly #clientRequests = new ClientRequestTable();
  #closed = false;
  #principal: Principal | undefined;
  /**
   * The socket this session's requests come from. A legacy HTTP session spans many HTTP requests,
   * perhaps on several sockets: its transport sets the one of each POST before handing it over.
   */
  peer: PeerAddress | undefined;
  /**
   * Who this session's caller is for every bound and share (transports/caller-identity.ts): its
   * principal's key, else its client's address key; undefined where the transport knows neither
   * (stdio, in-process), and the session is then a caller of its own.
   */
  readonly caller: string | undefined;

  constructor(
    /** Where messages that answer no particular request go (list_changed, resource updates). */
    readonly sink: MessageSink,
    readonly id?: string,
    /** Who opened this session, as the transport's auth hook vouched (undefined without auth). */
    principal?: Principal,
    peer?: PeerAddress,
    caller?: string,
  ) {
    this.#principal = principal;
    this.peer = peer;
    this.caller = caller;
  }

  /** Who opened this session, as the transport's auth hook vouched (undefined without auth). */
  get principal(): Principal | undefined {
    return this.#principal;
  }

  /**
   * The same caller came back with new credentials (a legacy HTTP request with a step-up token):
   * from now on the session's scopes and expiry are those. Another caller's principal is refused:
   * a session never changes hands.
   */
  renewPrincipal(principal: Principal | undefined): void {
    if (principal === this.#principal) return;
    if (!samePrincipal(principal, this.#principal)) {
      throw new Error('A session belongs to the principal that opened it; it cannot change hands');
    }
    this.#principal = principal;
  }

  get closed(): boolean {
    return this.#closed;
  }

  get inFlightCount(): number {
    return this.#inFlight.size;
  }

  isInFlight(id: RequestId): boolean {
    return this.#inFlight.has(id);
  }

  /** Marks a request as running; it is cancelled when the client cancels it or the session closes. */
  begin(id: RequestId): Cancellation {
    const cancellation = new Cancellation();
    this.#inFlight.set(id, cancellation);
    return cancellation;
  }

  end(id: RequestId): void {
    this.#inFlight.delete(id);
  }

  cancel(id: RequestId, reason: CancelReason = 'cancelled'): boolean {
    const cancellation = this.#inFlight.get(id);
    if (!cancellation) return false;
    cancellation.cancel(reason);
    return true;
  }

  /** Cancels everything still running, e.g. when the connection is gone or the server stops. */
  cancelAll(reason: CancelReason): void {
    for (const cancellation of this.#inFlight.values()) cancellation.cancel(reason);
  }

  /**
   * Sends a request to the client (`sampling/createMessage`, `elicitation/create`, `roots/list`...)
   * and resolves with its result. This is the one entry point for server-to-client requests, for
   * inline handlers and (relayed by the pool) blocking ones alike.
   *
   * `via` is where the request goes: the sink of the call that asks (so over HTTP it travels on that
   * call's SSE stream), or by default the session's own sink. Aborting `signal` tells the client with
   * `notifications/cancelled` and rejects with the signal's reason. An error response rejects with a
   * ProtocolError carrying the client's code and message; a closed session rejects at once.
   */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    signal?: AbortSignal,
    via: MessageSink = this.sink,
  ): Promise<unknown> {
    if (this.#closed) {
      return Promise.reject(new ProtocolError(-32000, `Cannot send ${method}: the client is gone`));
    }
    return this.#clientRequests.send(method, params, signal, via);
  }

  /** Routes a client's response to the request it answers; false when nothing was waiting for it. */
  settle(response: JsonRpcResponse): boolean {
    return this.#clientRequests.settle(response);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const release of this.subscriptions.values()) release();
    this.subscriptions.clear();
    this.cancelAll('cancelled');
    this.#clientRequests.rejectAll(
      () => new ProtocolError(-32000, 'The session closed before the client answered'),
    );
  }
}
