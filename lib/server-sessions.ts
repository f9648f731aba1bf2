/**
 * The sessions a server has open: every transport's connection becomes one here, and what is told
 * to all clients (a list changed, a resource updated) is told through this set. It is kept apart
 * from the facade so that shutdown and the transports reach the sessions without reaching the rest
 * of the server.
 *
 * List changes are coalesced per turn of the event loop: a thousand tools toggled at once (a tag,
 * a mounted upstream's new list) are one `list_changed` per kind to each session and listen stream,
 * not a thousand, since each says only "fetch the list again".
 */

import type { Principal } from './auth/principal.js';
import { resourceUpdatedNotification } from './context-views.js';
import type { CancelReason } from './engine/cancellation.js';
import { notification } from './protocol/json-rpc.js';
import { encodeMessage, encodeMessageChunks } from './protocol/message-encoding.js';
import type { ListChangedKind, ListenStreams } from './router/listen-streams.js';
import type { Router } from './router/router.js';
import { type MessageSink, type PeerAddress, Session } from './router/session.js';
import type { NetworkFacts, ServerTelemetry } from './telemetry/server-telemetry.js';
import { principalCaller } from './transports/caller-identity.js';
import type { Connection } from './transports/connection.js';

export class ServerSessions {
  readonly #sessions = new Set<Session>();
  readonly #router: Router;
  readonly #listens: ListenStreams;
  readonly #telemetry: ServerTelemetry | undefined;
  readonly #logError: (message: string) => void;
  /** Kinds whose list changed this turn, told to everyone once the turn ends. */
  readonly #changedKinds = new Set<ListChangedKind>();
  #changeTold: NodeJS.Immediate | undefined;
  /** Numbers the connections whose transport knows no caller (stdio, in-process): each is its own. */
  #nextConnection = 1;

  constructor(
    router: Router,
    listens: ListenStreams,
    telemetry: ServerTelemetry | undefined,
    logError: (message: string) => void,
  ) {
    this.#router = router;
    this.#listens = listens;
    this.#telemetry = telemetry;
    this.#logError = logError;
  }

  /**
   * Opens a connection for a transport; `sink` receives every message sent to that peer, and
   * `principal` (who the transport's auth hook vouched for) travels with every message of it.
   * `network` says which network the transport is on (telemetry's attributes). `caller` is the
   * caller key the transport worked out at its door; without one the principal is the caller, else
   * the connection is a caller of its own.
   */
  open(
    sink: MessageSink,
    sessionId: string | undefined,
    principal: Principal | undefined,
    network: NetworkFacts | undefined,
    peer?: PeerAddress,
    caller?: string,
  ): Connection {
    const key = caller ?? (principal ? principalCaller(principal) : `connection ${this.#nextConnection++}`);
    const session = new Session(sink, sessionId, principal, peer, key);
    this.#sessions.add(session);
    this.#telemetry?.sessionOpened(session, network);
    const router = this.#router;
    return {
      session,
      receive: (value, replyTo, arrivedAt) => router.receive(session, value, replyTo, undefined, arrivedAt),
      encode: (message) => encodeMessage(message, this.#logError),
      encodeChunks: (message) => encodeMessageChunks(message, this.#logError),
      close: () => {
        if (!session.closed) this.#telemetry?.sessionClosed(session);
        session.close();
        this.#sessions.delete(session);
      },
    };
  }

  /** The requests being answered now, across every session. */
  get inFlight(): number {
    let inFlight = 0;
    for (const session of this.#sessions) inFlight += session.inFlightCount;
    return inFlight;
  }

  /** A list changed: initialized legacy sessions hear it, and the listen streams that asked (once per turn). */
  listChanged(kind: ListChangedKind): void {
    this.#changedKinds.add(kind);
    this.#changeTold ??= setImmediate(() => this.#tellChanges());
  }

  #tellChanges(): void {
    this.#changeTold = undefined;
    const kinds = [...this.#changedKinds];
    this.#changedKinds.clear();
    for (const kind of kinds) this.#tellChanged(kind);
  }

  #tellChanged(kind: ListChangedKind): void {
    const message = notification(`notifications/${kind}/list_changed`);
    for (const session of this.#sessions) {
      if (session.initialized && !session.closed) session.sink.send(message);
    }
    this.#listens.listChanged(kind);
  }

  /** `uri` changed: legacy sessions that called resources/subscribe hear it, and listen streams that named it. */
  resourceUpdated(uri: string): void {
    const message = resourceUpdatedNotification(uri);
    for (const session of this.#sessions) {
      if (!session.closed && session.subscriptions.has(uri)) session.sink.send(message);
    }
    this.#listens.resourceUpdated(uri);
  }

  /** Sessions open now, for `server.stats`. */
  get size(): number {
    return this.#sessions.size;
  }

  /** Cancels every session's requests in flight (their answers say why). */
  cancelAll(reason: CancelReason): void {
    for (const session of this.#sessions) session.cancelAll(reason);
  }

  /** Closes every session and forgets them all. */
  closeAll(): void {
    if (this.#changeTold) clearImmediate(this.#changeTold);
    this.#changeTold = undefined;
    this.#changedKinds.clear();
    for (const session of this.#sessions) session.close();
    this.#sessions.clear();
  }
}
