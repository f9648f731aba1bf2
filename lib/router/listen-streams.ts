/**
 * `subscriptions/listen`: long-lived notification streams of the 2026-07-28 era, on every
 * transport (the router only sees a request and its sink; over HTTP that sink is the request's own
 * SSE stream, over stdio and WebSocket it is the shared connection).
 *
 * - The acknowledgement goes out first, with the honoured subset of what was asked (a kind the
 *   server's capabilities do not offer, or a URI no resource answers to, is left out).
 * - Every notification carries `_meta["io.modelcontextprotocol/subscriptionId"]`, the listen
 *   request's id with its type kept; only the kinds the stream asked for are sent.
 * - The request stays in flight under its id, so `notifications/cancelled` or a closed
 *   connection ends it (no response, as for any cancelled request), and a duplicate id is refused.
 *   At shutdown the server ends it gracefully: the listen request is answered `complete`.
 * - Bounded: a stream holds at most one undelivered notification per kind and per subscribed URI
 *   (a list_changed says "fetch again", so two unsent ones say no more than one). While the
 *   transport reports more than MAX_BACKLOG_BYTES unsent, they wait, coalesced, and are retried;
 *   a reader that never reads costs a few set entries, not a growing queue.
 * - Counted: at most `maxPerConnection` streams on one session or connection, `maxPerCaller` for
 *   one caller (the request scope's caller: its principal, else its client's address) and
 *   `maxTotal` on the server (bounds-options.ts), since each holds its request in flight and is
 *   visited by every change. One more than a connection's or a caller's share is refused (-32013,
 *   `data.limit` names the bound). At the server's cap a newcomer takes room: the oldest stream
 *   of the caller holding the most is ended (answered, as at shutdown), so one caller holding most
 *   streams cannot keep another's first one out; only when no caller holds more than the
 *   newcomer would is it refused (`maxListens`).
 * - A stream belongs to the principal of its request: it hears only that principal's tasks, and is
 *   granted only the resource URIs that principal's scopes may read.
 */
import { principalKey } from '../auth/principal.js';
import { holdsScopes } from '../auth/scopes.js';
import {
  DEFAULT_MAX_LISTENS,
  DEFAULT_MAX_LISTENS_PER_CALLER,
  DEFAULT_MAX_LISTENS_PER_CONNECTION,
} from '../bounds-options.js';
import { CallerShares } from '../caller-shares.js';
import type { Cancellation, CancelReason } from '../engine/cancellation.js';
import { LISTEN_METHOD, META } from '../protocol/eras.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { notification, type RequestId } from '../protocol/json-rpc.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import { type MethodContext, NO_RESPONSE } from './method-table.js';
import type { Router } from './router.js';
import type { MessageSink, Session } from './session.js';

/** What a listen request may ask for (the schema's SubscriptionFilter). */
export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  /** Tasks whose status changes the stream hears (`notifications/tasks`, the tasks extension). */
  taskIds?: string[];
}

export type ListChangedKind = 'tools' | 'prompts' | 'resources';
type ListChangedFlag = 'toolsListChanged' | 'promptsListChanged' | 'resourcesListChanged';

/** Past this many bytes written but not yet sent by the transport, a stream's notifications wait. */
export const MAX_BACKLOG_BYTES = 1024 * 1024;
/** How often a stream held back by a slow reader looks again. */
const BACKLOG_RETRY_MS = 50;

const LIST_CHANGED: Record<ListChangedKind, { flag: ListChangedFlag; method: string }> = {
  tools: { flag: 'toolsListChanged', method: 'notifications/tools/list_changed' },
  prompts: { flag: 'promptsListChanged', method: 'notifications/prompts/list_changed' },
  resources: { flag: 'resourcesListChanged', method: 'notifications/resources/list_changed' },
};

export interface ListenStreamOptions {
  /** The server's capabilities now: they decide which kinds a stream is granted. */
  capabilities: () => Record<string, unknown>;
  /** Whether some resource (or template) answers to `uri`. */
  hasResource: (uri: string) => boolean;
  /** The scopes reading `uri` needs (resource-registry.ts scopesOf). */
  scopesOf?: (uri: string) => readonly string[] | undefined;
  /**
   * A stream was granted `uri`: a mounted resource subscribes upstream (resource-registry.ts
   * watch); the returned release is called when the stream ends. May throw (a mount's cap).
   */
  watch?: (uri: string) => () => void;
  /** Streams open at once on one session or connection (default 64). */
  maxPerConnection?: number;
  /** Streams open at once for one caller (default 1,000). */
  maxPerCaller?: number;
  /** Streams open at once on the server (default 10,000). */
  maxTotal?: number;
}

/** Filter keys that name lists of strings. */
const LIST_FILTERS = ['resourceSubscriptions', 'taskIds'] as const;

/** One open stream: what it was granted, and what it has not yet been able to deliver. */
class ListenStream {
  /** Notification keys waiting to go out: a list_changed method, or `updated <uri>`. */
  readonly #pending = new Set<string>();
  /** The latest undelivered state of each granted task (a newer one replaces it: it says more). */
  readonly #tasks = new Map<string, Record<string, unknown>>();
  #scheduled = false;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    readonly id: RequestId,
    readonly granted: SubscriptionFilter,
    readonly uris: ReadonlySet<string>,
    readonly sink: MessageSink,
    readonly taskIds: ReadonlySet<string> = new Set(),
    /** principalKey of the listen request's principal; undefined without auth. */
    readonly owner: string | undefined = undefined,
  ) {}

  offerTask(taskId: string, detail: Record<string, unknown>): void {
    if (this.#closed) return;
    this.#tasks.set(taskId, detail);
    this.#schedule();
  }

  /** `now`: the change was coalesced already (server-sessions.ts), so it goes out at once. */
  offer(key: string, now = false): void {
    if (this.#closed) return;
    this.#pending.add(key);
    if (now && this.#retry === undefined) this.#flush();
    else this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled || this.#retry) return;
    this.#scheduled = true;
    // Changes made in one turn (a tool added, then removed) reach the reader as one notification.
    setImmediate(() => this.#flush());
  }

  close(): void {
    this.#closed = true;
    this.#pending.clear();
    this.#tasks.clear();
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = undefined;
  }

  #flush(): void {
    this.#scheduled = false;
    this.#retry = undefined;
    if (this.#closed || (this.#pending.size === 0 && this.#tasks.size === 0)) return;
    if ((this.sink.backlogBytes?.() ?? 0) > MAX_BACKLOG_BYTES) {
      this.#retry = setTimeout(() => this.#flush(), BACKLOG_RETRY_MS);
      this.#retry.unref();
      return;
    }
    const keys = [...this.#pending];
    this.#pending.clear();
    const tasks = [...this.#tasks.values()];
    this.#tasks.clear();
    for (const detail of tasks) {
      this.sink.send(
        notification('notifications/tasks', { ...detail, _meta: { [META.subscriptionId]: this.id } }),
      );
    }
    for (const key of keys) {
      const meta = { [META.subscriptionId]: this.id };
      this.sink.send(
        key.startsWith('updated ')
          ? notification('notifications/resources/updated', { _meta: meta, uri: key.slice(8) })
          : notification(key, { _meta: meta }),
      );
    }
  }
}

export class ListenStreams {
  /** Each open stream, with the cancellation of its listen request (which ends it). */
  readonly #streams = new Map<ListenStream, Cancellation>();
  readonly #options: ListenStreamOptions;
  /** Shutdown ended the streams: no new one opens. */
  #ended = false;
  /** Streams open on each session (a session's entry goes with its last stream). */
  readonly #perSession = new Map<Session, number>();
  readonly #maxPerConnection: number;
  readonly #maxPerCaller: number;
  readonly #maxTotal: number;
  /** Each caller's streams, oldest first. */
  readonly #shares = new CallerShares<ListenStream>();

  constructor(options: ListenStreamOptions) {
    this.#options = options;
    this.#maxPerConnection = options.maxPerConnection ?? DEFAULT_MAX_LISTENS_PER_CONNECTION;
    this.#maxPerCaller = options.maxPerCaller ?? DEFAULT_MAX_LISTENS_PER_CALLER;
    this.#maxTotal = options.maxTotal ?? DEFAULT_MAX_LISTENS;
  }

  /** Streams open now, for `server.stats`. */
  get size(): number {
    return this.#streams.size;
  }

  addTo(router: Router): void {
    router.method(LISTEN_METHOD, (ctx) => this.#listen(ctx));
  }

  /** Tells the streams that asked for it that a list changed (once per turn: server-sessions.ts). */
  listChanged(kind: ListChangedKind): void {
    const { flag, method } = LIST_CHANGED[kind];
    for (const stream of this.#streams.keys()) if (stream.granted[flag] === true) stream.offer(method, true);
  }

  /** Tells the streams subscribed to `uri` that the resource changed. */
  resourceUpdated(uri: string): void {
    for (const stream of this.#streams.keys()) if (stream.uris.has(uri)) stream.offer(`updated ${uri}`);
  }

  /**
   * Tells the streams that asked for `taskId` its new state (a DetailedTask), if they belong to
   * the task's principal (`owner`, a principalKey; undefined for a task made without auth).
   */
  taskChanged(taskId: string, owner: string | undefined, detail: Record<string, unknown>): void {
    for (const stream of this.#streams.keys())
      if (stream.taskIds.has(taskId) && stream.owner === owner) stream.offerTask(taskId, detail);
  }

  /**
   * Ends every stream gracefully (shutdown): each listen request is answered `complete`, and a listen
   * asked for after this moment is refused (-32011): a stream opened now would hold the drain open
   * until the grace ran out, for a client that must reconnect elsewhere anyway.
   */
  endAll(): void {
    this.#ended = true;
    for (const cancellation of [...this.#streams.values()]) cancellation.cancel('shutdown');
  }

  #listen({ session, request, params, sink, scope }: MethodContext): Promise<unknown> | typeof NO_RESPONSE {
    if (this.#ended) {
      throw new ProtocolError(
        ErrorCode.ShuttingDown,
        'The server is shutting down; listen again once it is back',
      );
    }
    const granted = this.#grant(readFilter(params.notifications), scope.principal);
    // A connection already gone could never end the stream (its close has run): nothing to open.
    if (session.closed) return NO_RESPONSE;
    const caller = scope.caller ?? session.caller ?? 'unknown';
    this.#checkRoom(session, caller);
    const stream = new ListenStream(
      request.id,
      granted,
      new Set(granted.resourceSubscriptions),
      sink,
      new Set(granted.taskIds),
      scope.principal === undefined ? undefined : principalKey(scope.principal),
    );
    const releases: (() => void)[] = [];
    try {
      for (const uri of stream.uris) if (this.#options.watch) releases.push(this.#options.watch(uri));
    } catch (error) {
      for (const release of releases) release();
      throw error;
    }
    const cancellation = session.begin(request.id);
    sink.send(
      notification('notifications/subscriptions/acknowledged', {
        _meta: { [META.subscriptionId]: request.id },
        notifications: granted,
      }),
    );
    this.#streams.set(stream, cancellation);
    this.#shares.add(caller, stream);
    this.#perSession.set(session, (this.#perSession.get(session) ?? 0) + 1);
    return new Promise<unknown>((resolve) => {
      cancellation.onCancel((reason: CancelReason) => {
        this.#streams.delete(stream);
        this.#shares.remove(stream);
        const left = (this.#perSession.get(session) ?? 1) - 1;
        if (left <= 0) this.#perSession.delete(session);
        else this.#perSession.set(session, left);
        stream.close();
        for (const release of releases) release();
        session.end(request.id);
        // The client that cancelled (or is gone) expects nothing; the server ending the stream
        // answers the request, which tells the client it ended on purpose.
        resolve(reason === 'cancelled' ? NO_RESPONSE : { _meta: { [META.subscriptionId]: request.id } });
      });
    });
  }

  /**
   * Refuses one stream more than the session's or the caller's share allows; at the server's
   * bound, ends the oldest stream of the biggest holder to make room, or refuses when none holds
   * more than `caller` would.
   */
  #checkRoom(session: Session, caller: string): void {
    const mine = this.#perSession.get(session) ?? 0;
    if (mine >= this.#maxPerConnection) {
      throw new ProtocolError(
        ErrorCode.LimitExceeded,
        `Limit exceeded: bounds.maxListensPerConnection allows ${this.#maxPerConnection} listen streams on one connection; end one (notifications/cancelled) before opening another`,
        { limit: 'maxListensPerConnection', scope: 'connection', max: this.#maxPerConnection },
      );
    }
    const callers = this.#shares.countOf(caller);
    if (callers >= this.#maxPerCaller) {
      throw new ProtocolError(
        ErrorCode.LimitExceeded,
        `Limit exceeded: bounds.maxListensPerCaller allows ${this.#maxPerCaller} listen streams for one caller; end one (notifications/cancelled) before opening another`,
        { limit: 'maxListensPerCaller', scope: 'caller', max: this.#maxPerCaller },
      );
    }
    if (this.#streams.size >= this.#maxTotal) {
      const taken = this.#shares.oldestOfBiggestHolder(caller);
      // Ended as at shutdown: its listen request is answered, telling its client it ended on purpose.
      if (taken !== undefined) this.#streams.get(taken)?.cancel('shutdown');
    }
    if (this.#streams.size >= this.#maxTotal) {
      throw new ProtocolError(
        ErrorCode.LimitExceeded,
        `Limit exceeded: bounds.maxListens allows ${this.#maxTotal} listen streams on this server; retry later`,
        { limit: 'maxListens', scope: 'server', max: this.#maxTotal, retryAfterMs: 1_000 },
      );
    }
  }

  /** The subset of `asked` this server can honour now, for this principal. */
  #grant(asked: SubscriptionFilter, principal: MethodContext['scope']['principal']): SubscriptionFilter {
    const capabilities = this.#options.capabilities() as Record<
      string,
      { listChanged?: boolean; subscribe?: boolean } | undefined
    >;
    const granted: SubscriptionFilter = {};
    for (const kind of Object.keys(LIST_CHANGED) as ListChangedKind[]) {
      const { flag } = LIST_CHANGED[kind];
      if (asked[flag] === true && capabilities[kind]?.listChanged === true) granted[flag] = true;
    }
    if (asked.resourceSubscriptions !== undefined && capabilities.resources?.subscribe === true) {
      const { scopesOf } = this.#options;
      granted.resourceSubscriptions = [...new Set(asked.resourceSubscriptions)].filter(
        (uri) =>
          this.#options.hasResource(uri) &&
          (principal === undefined || scopesOf === undefined || holdsScopes(principal, scopesOf(uri))),
      );
    }
    // Any id may be named (it may belong to a task on another replica); unknown ones stay silent.
    if (asked.taskIds !== undefined && capabilities.tasks !== undefined)
      granted.taskIds = [...new Set(asked.taskIds)];
    return granted;
  }
}

function readFilter(value: unknown): SubscriptionFilter {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw ProtocolError.invalidParams(
      `${LISTEN_METHOD} needs params.notifications, an object such as { "toolsListChanged": true }`,
    );
  }
  const filter = value as Record<string, unknown>;
  for (const { flag } of Object.values(LIST_CHANGED)) {
    if (filter[flag] !== undefined && typeof filter[flag] !== 'boolean') {
      throw ProtocolError.invalidParams(`params.notifications.${flag} must be true or false`);
    }
  }
  for (const key of LIST_FILTERS) {
    const list = filter[key];
    if (list !== undefined && (!Array.isArray(list) || list.some((item) => typeof item !== 'string'))) {
      throw ProtocolError.invalidParams(
        `params.notifications.${key} must be an array of ${key === 'taskIds' ? 'task ids' : 'URI strings'}`,
      );
    }
  }
  return filter as SubscriptionFilter;
}
