/**
 * The router's seam for telemetry: one request from a client, from the moment it is read to the
 * moment its answer goes out (or, for a cancelled call, the moment it is over without one).
 *
 * The router knows nothing of OpenTelemetry: lib/telemetry implements this, and with telemetry
 * off the router holds no observer and pays one branch per request. Observing at this one place
 * covers every method of both eras, and every early refusal (-32601, a bad envelope) too.
 */
import type { CallTrace } from '../engine/call-observer.js';
import type { JsonRpcRequest } from '../protocol/json-rpc.js';
import type { MessageSink, Session } from './session.js';

export interface RequestObserver {
  /** A request arrives; undefined: this one is not observed. */
  start(session: Session, request: JsonRpcRequest, sink: MessageSink): ObservedRequest | undefined;
}

export interface ObservedRequest {
  /** Where the request's answer and notifications go: sees the answer, then passes everything on. */
  readonly sink: MessageSink;
  /** What the calls made for this request carry into the engine (absent: not tracing). */
  readonly trace: CallTrace | undefined;
  /**
   * Routes the request inside its context (a span an inline handler starts is the request's
   * child), and ends the observation once the dispatch has settled.
   */
  run(dispatch: () => Promise<void> | undefined): Promise<void> | undefined;
  /** The MRTR chain this request is a round of (mrtr-chain.ts), once the router knows it. */
  noteMrtrChain?(chain: string): void;
}
