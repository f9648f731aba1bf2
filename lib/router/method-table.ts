/**
 * The shape of a method handler, and the marker for "answer nothing" (a cancelled call).
 */
import type { CallTrace } from '../engine/call-observer.js';
import type { JsonRpcRequest } from '../protocol/json-rpc.js';
import type { RequestScope } from './request-scope.js';
import type { MessageSink, Session } from './session.js';

export const NO_RESPONSE: unique symbol = Symbol('weft.noResponse');

export interface MethodContext {
  session: Session;
  params: Record<string, unknown>;
  request: JsonRpcRequest;
  /** Where this request's response and its related notifications (progress, logs) go. */
  sink: MessageSink;
  /** What this request may know of its client (era, version, capabilities, log level). */
  scope: RequestScope;
  /** The request's telemetry, handed to the engine with its calls (undefined: not tracing). */
  trace?: CallTrace | undefined;
  /**
   * When the request reached the router (`performance.now()` ms): deadlines count from here
   * (engine/deadline.ts, budgetLeftMs). Absent in contexts made by hand, which count from the call.
   */
  arrivedAt?: number;
}

export type MethodResult = unknown | typeof NO_RESPONSE;
export type MethodHandler = (ctx: MethodContext) => MethodResult | Promise<MethodResult>;
