/**
 * Where a pool thread's messages for a running call go: its progress and log events to the call's
 * `CallEvents`, its requests (ctx.elicit, ctx.sample, ctx.tools()...) to the client or the server
 * through the call's peer, and nowhere once the call's outcome is decided.
 *
 * Why a room of its own: events travel on the worker's parentPort, which Piscina re-emits on the
 * pool, not on a MessageChannel per call, so they must be routed to their call by id here; and that
 * port is not ordered with the task's result port, so a result that overtakes its call's events
 * (it carries how many were sent before it) waits for them here, briefly, before its outcome is
 * decided. The pool executor decides outcomes; this module only delivers.
 */
import type { CallEvents, CallPeer } from './engine-call.js';
import { errorReply, performPeerOp } from './peer-ops.js';
import { type ClientReply, deliverCallEvent, isWorkerEvent, type WorkerEvent } from './worker-protocol.js';

/** Where a running call's worker events go, and how many have arrived (see PoolTaskResult). */
export interface EventSink {
  readonly callId: number;
  readonly events: CallEvents;
  /** How ctx.elicit / ctx.sample reach the client, when the call came from one. */
  readonly peer: CallPeer | undefined;
  /** A signal that aborts when the call's outcome is decided (made on first use). */
  readonly overSignal: () => AbortSignal;
  received: number;
  /** Set while a result waits for events still in flight on the other channel. */
  expected?: number;
  caughtUp?: () => void;
}

/** How long a result waits for events its worker sent before it; a safety net, not a delay. */
const EVENT_CATCH_UP_MS = 200;

/**
 * The event sinks of calls whose outcome is not decided yet. A short array searched by call id: as
 * many entries as calls running on threads, and no map to grow and shrink on every call.
 */
export class CallEventSinks {
  readonly #sinks: EventSink[] = [];

  add(sink: EventSink): void {
    this.#sinks.push(sink);
  }

  /** Once the call's outcome is decided: its late events are dropped from then on. */
  remove(sink: EventSink): void {
    const index = this.#sinks.indexOf(sink);
    if (index < 0) return;
    const last = this.#sinks.pop()!;
    if (index < this.#sinks.length) this.#sinks[index] = last;
  }

  find(callId: number): EventSink | undefined {
    for (const sink of this.#sinks) if (sink.callId === callId) return sink;
    return undefined;
  }

  /** A message a pool re-emitted from one of its threads: delivered to its call, or dropped. */
  route(message: unknown): void {
    if (!isWorkerEvent(message)) return;
    const sink = this.find(message.callId);
    if (message.weft === 'request' || message.weft === 'peer') {
      relayWorkerRequest(sink, message);
      return;
    }
    if (!sink) return; // the call is over: late events are dropped
    deliverCallEvent(sink.events, message);
    sink.received++;
    if (sink.expected !== undefined && sink.received >= sink.expected) sink.caughtUp?.();
  }

  /**
   * Calls `finish` once the sink has received `expected` events, or after EVENT_CATCH_UP_MS if some
   * never come (a safety net: the worker sent them, so they are on their way).
   */
  awaitEvents(sink: EventSink, expected: number, finish: () => void): void {
    const timer = setTimeout(finish, EVENT_CATCH_UP_MS);
    sink.expected = expected;
    sink.caughtUp = () => {
      clearTimeout(timer);
      finish();
    };
  }
}

/**
 * Asks the client, or performs a PeerOp, on a worker's behalf and posts the answer on the request's
 * own port. A request from a call that is already over is answered with an error at once, so no
 * worker waits forever.
 */
function relayWorkerRequest(
  sink: EventSink | undefined,
  event: Extract<WorkerEvent, { weft: 'request' | 'peer' }>,
): void {
  const answer = (reply: ClientReply) => {
    try {
      event.reply.postMessage(reply);
    } catch (error) {
      event.reply.postMessage({
        ok: false,
        message: `The answer cannot be sent to the worker: ${errorReply(error).message}`,
      });
    }
    event.reply.close();
  };
  if (!sink?.peer) {
    answer({
      ok: false,
      message: sink
        ? 'This call was not made by a client, so there is no client or server to reach'
        : 'The call is over',
    });
    return;
  }
  const signal = sink.overSignal();
  const asked =
    event.weft === 'request'
      ? sink.peer.request(event.method, event.params, signal)
      : performPeerOp(sink.peer, signal, event.op);
  asked.then(
    (result) => answer({ ok: true, result }),
    (error: unknown) => answer({ ok: false, ...errorReply(error) }),
  );
}
