/**
 * The main-thread router: JSON-RPC in, JSON-RPC out, for every transport and both protocol eras.
 *
 * Each request is classified on its own (`eraOf`): a legacy one is served under what its session
 * negotiated, a modern one under its own `_meta` envelope (checked here: -32602 / -32022), and the
 * era decides which methods exist and how the answer is dressed (ModernAnswers). The handlers in
 * the method table are the same for both eras and see the client only through a RequestScope.
 *
 * It refuses duplicate in-flight ids and turns thrown ProtocolErrors into error responses. Any
 * other exception is a bug: the client gets a plain -32603 and the detail goes to the server log.
 * Nothing here blocks: slow work is the engine's, and a method handler that returns a promise is
 * answered when it settles.
 *
 * Every result is encoded here, once, before it is sent: a result that cannot be sent as JSON is a
 * -32603 under its id (detail in the log) instead of a throw inside a transport and a lost call.
 * tools/call hands over results it already encoded, having turned such failures into tool errors.
 */

import type { CallTrace } from '../engine/call-observer.js';
import {
  type Era,
  eraOf,
  LATEST_MODERN_VERSION,
  MODERN_METHODS,
  MODERN_ONLY_METHODS,
  readModernEnvelope,
} from '../protocol/eras.js';
import { ErrorCode } from '../protocol/error-codes.js';
import {
  classify,
  failure,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../protocol/json-rpc.js';
import { EncodedResult, encodedSuccess, encodeJson, type JsonText } from '../protocol/message-encoding.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import { allowsBatches } from '../protocol/versions.js';
import type { CacheOptions } from './cache-hints.js';
import { type MethodHandler, NO_RESPONSE } from './method-table.js';
import { MiddlewareChain } from './middleware-chain.js';
import { ModernAnswers } from './modern-answers.js';
import type { RequestObserver } from './request-observer.js';
import { legacyScope, modernScope, type RequestScope } from './request-scope.js';
import type { ServerIdentity } from './server-identity.js';
import type { MessageSink, Session } from './session.js';

export type NotificationHandler = (session: Session, params: Record<string, unknown>) => void;

export interface RouterOptions {
  logError: (message: string) => void;
  identity: ServerIdentity;
  /** Cache hints on the modern era's cacheable results. */
  cache?: CacheOptions;
  /** Told of every client request and its answer (telemetry); absent: nobody is. */
  observer?: RequestObserver;
}

/** How one request's answer is written: as is (legacy, internal calls) or in the modern shape. */
interface Answering {
  /** The result as it goes out, with its JSON text or why it has none. */
  result(method: string, value: unknown): { result: unknown; json: JsonText };
  failure(request: JsonRpcRequest, error: ProtocolError): JsonRpcResponse;
}

const AS_IS: Answering = {
  result: (_method, value) =>
    value instanceof EncodedResult
      ? { result: value.value, json: value.json }
      : { result: value, json: encodeJson(value) },
  failure: (request, error) => failure(request.id, error),
};

/** -32601 for a modern request, saying whether the method is gone from the era or just not offered here. */
function modernMethodNotFound(method: string): ProtocolError {
  const rule = MODERN_METHODS.get(method);
  if (rule?.capability !== undefined) {
    return new ProtocolError(
      ErrorCode.MethodNotFound,
      `Method not found: ${method} (this server does not offer ${rule.capability}; see server/discover)`,
    );
  }
  if (rule !== undefined) return ProtocolError.methodNotFound(method);
  return new ProtocolError(
    ErrorCode.MethodNotFound,
    `Method not found: ${method} is not a method of protocol version ${LATEST_MODERN_VERSION}`,
  );
}

export class Router {
  readonly #methods = new Map<string, MethodHandler>();
  readonly #notifications = new Map<string, NotificationHandler>();
  readonly #logError: (message: string) => void;
  readonly #identity: ServerIdentity;
  readonly #modern: Answering;
  readonly #cache: CacheOptions | undefined;
  /** The author's middleware (server.use); undefined until the first, so none costs one check. */
  #middleware: MiddlewareChain | undefined;
  readonly #observer: RequestObserver | undefined;

  constructor(options: RouterOptions) {
    this.#logError = options.logError;
    this.#cache = options.cache;
    this.#observer = options.observer;
    this.#identity = options.identity;
    const answers = new ModernAnswers(options.identity, options.cache);
    this.#modern = {
      result: (method, value) => answers.encoded(method, value),
      failure: (request, error) => failure(request.id, answers.error(error)),
    };
  }

  method(name: string, handler: MethodHandler): this {
    this.#methods.set(name, handler);
    return this;
  }

  /** Adds a middleware around every later dispatch (see middleware-chain.ts). */
  use(middleware: unknown): this {
    this.#middleware ??= new MiddlewareChain(this.#cache);
    this.#middleware.add(middleware);
    return this;
  }

  notification(name: string, handler: NotificationHandler): this {
    this.#notifications.set(name, handler);
    return this;
  }

  /**
   * Whether a request for `method` in `era` would be dispatched (false means -32601), so a
   * transport can route (HTTP 404) without dispatching. A modern method whose capability the
   * server does not advertise right now (prompts/list on a server without prompts) does not exist.
   */
  knows(method: string, era: Era): boolean {
    if (!this.#methods.has(method)) return false;
    if (era === 'legacy') return !MODERN_ONLY_METHODS.has(method);
    const rule = MODERN_METHODS.get(method);
    if (rule === undefined) return false;
    return rule.capability === undefined || this.#identity.capabilities()[rule.capability] !== undefined;
  }

  /**
   * Handles one parsed JSON value (a message or a batch). Responses go to `sink`; the promise
   * settles when every request in it has been answered (or cancelled).
   *
   * `scope` is for calls the server makes to itself on a handler's behalf (`ctx.tools().call`):
   * they run under the scope of the request that made them, and their answer is returned as is.
   * `arrivedAt` (`performance.now()`) is when the transport received the value at its door; a
   * deadline counts from there (now, when not given).
   */
  receive(
    session: Session,
    value: unknown,
    sink: MessageSink = session.sink,
    scope?: RequestScope,
    arrivedAt?: number,
  ): Promise<void> | undefined {
    if (Array.isArray(value)) return this.#batch(session, value, sink, arrivedAt);
    return this.#one(session, value, sink, scope, arrivedAt);
  }

  async #batch(
    session: Session,
    values: unknown[],
    sink: MessageSink,
    arrivedAt: number | undefined,
  ): Promise<void> {
    if (values.length === 0 || !allowsBatches(session.protocolVersion)) {
      const why =
        values.length === 0
          ? 'An empty batch is not a valid JSON-RPC request'
          : 'JSON-RPC batches are only part of protocol version 2025-03-26; send one message at a time';
      sink.send(failure(null, ProtocolError.invalidRequest(why)));
      return;
    }
    const responses: JsonRpcMessage[] = [];
    const collect: MessageSink = {
      send(message) {
        if (Array.isArray(message) || !('id' in message)) sink.send(message);
        else responses.push(message);
      },
    };
    await Promise.all(values.map((value) => this.#one(session, value, collect, undefined, arrivedAt)));
    if (responses.length > 0) sink.send(responses);
  }

  #one(
    session: Session,
    value: unknown,
    sink: MessageSink,
    scope: RequestScope | undefined,
    arrivedAt: number | undefined,
  ): Promise<void> | undefined {
    const message = classify(value);
    switch (message.kind) {
      case 'invalid':
        sink.send(failure(message.id, message.error));
        return undefined;
      case 'notification': {
        const { method, params = {} } = message.message;
        const handler = this.#notifications.get(method);
        const wrapped = this.#middleware?.notification(
          session,
          method,
          params,
          eraOf(method, params),
          handler,
        );
        if (wrapped !== undefined) {
          wrapped.catch((error) =>
            this.#logError(`weft: ${method} middleware failed: ${(error as Error)?.stack ?? String(error)}`),
          );
          return undefined;
        }
        // Unknown notifications are ignored, as JSON-RPC requires (there is no one to tell).
        if (handler) this.#guard(() => handler(session, params));
        return undefined;
      }
      case 'response':
        // An answer to a server-to-client request (elicitation, sampling...). One that matches
        // nothing pending (late, after a cancel, or unknown) has no one to tell, so it is dropped.
        session.settle(message.message);
        return undefined;
      case 'request':
        if (scope !== undefined)
          return this.#dispatch(session, message.message, sink, scope, AS_IS, undefined, false);
        return this.#request(session, message.message, sink, arrivedAt);
    }
  }

  #request(
    session: Session,
    request: JsonRpcRequest,
    sink: MessageSink,
    arrivedAt: number | undefined,
  ): Promise<void> | undefined {
    const observed = this.#observer?.start(session, request, sink);
    if (observed === undefined) return this.#route(session, request, sink, undefined, arrivedAt);
    return observed.run(() => this.#route(session, request, observed.sink, observed.trace, arrivedAt));
  }

  #route(
    session: Session,
    request: JsonRpcRequest,
    sink: MessageSink,
    trace: CallTrace | undefined,
    arrivedAt: number | undefined,
  ): Promise<void> | undefined {
    if (eraOf(request.method, request.params) === 'legacy') {
      if (!this.knows(request.method, 'legacy')) {
        sink.send(failure(request.id, ProtocolError.methodNotFound(request.method)));
        return undefined;
      }
      return this.#dispatch(session, request, sink, legacyScope(session), AS_IS, trace, true, arrivedAt);
    }
    // Modern: the envelope first (-32602 / -32022), then routing (-32601), as clients rely on.
    let scope: RequestScope;
    try {
      scope = modernScope(readModernEnvelope(request.params), session.principal, session.caller);
    } catch (error) {
      sink.send(this.#errorResponse(request, error, this.#modern));
      return undefined;
    }
    if (!this.knows(request.method, 'modern')) {
      sink.send(this.#modern.failure(request, modernMethodNotFound(request.method)));
      return undefined;
    }
    return this.#dispatch(session, request, sink, scope, this.#modern, trace, true, arrivedAt);
  }

  #dispatch(
    session: Session,
    request: JsonRpcRequest,
    sink: MessageSink,
    scope: RequestScope,
    answering: Answering,
    trace?: CallTrace,
    fromClient = true,
    arrivedAt = performance.now(),
  ): Promise<void> | undefined {
    const handler = this.#methods.get(request.method);
    if (!handler) {
      sink.send(answering.failure(request, ProtocolError.methodNotFound(request.method)));
      return undefined;
    }
    if (session.isInFlight(request.id)) {
      sink.send(
        answering.failure(
          request,
          ProtocolError.invalidRequest(
            `Request id ${JSON.stringify(request.id)} is already in flight; use a new id for every pending request`,
          ),
        ),
      );
      return undefined;
    }
    let result: unknown;
    try {
      const context = { session, params: request.params ?? {}, request, sink, scope, trace, arrivedAt };
      // A handler's calls to its own server already went through middleware as their request.
      const chain = fromClient ? this.#middleware : undefined;
      result = chain === undefined ? handler(context) : chain.request(context, handler);
    } catch (error) {
      sink.send(this.#errorResponse(request, error, answering));
      return undefined;
    }
    if (result instanceof Promise) {
      return result.then(
        (value) => this.#answer(request, value, sink, answering),
        (error) => sink.send(this.#errorResponse(request, error, answering)),
      );
    }
    this.#answer(request, result, sink, answering);
    return undefined;
  }

  #answer(request: JsonRpcRequest, value: unknown, sink: MessageSink, answering: Answering): void {
    if (value === NO_RESPONSE) return;
    const { result, json } = answering.result(request.method, value);
    if (json.ok) {
      sink.send(encodedSuccess(request.id, result, json));
      return;
    }
    this.#logError(`weft: the result of ${request.method} cannot be sent as JSON: ${json.problem}`);
    sink.send(
      answering.failure(
        request,
        new ProtocolError(
          ErrorCode.InternalError,
          'Internal error: the server could not encode its result (details are in the server log)',
        ),
      ),
    );
  }

  #errorResponse(request: JsonRpcRequest, error: unknown, answering: Answering): JsonRpcResponse {
    if (error instanceof ProtocolError) return answering.failure(request, error);
    this.#logError(`weft: ${request.method} failed: ${(error as Error)?.stack ?? String(error)}`);
    return answering.failure(request, new ProtocolError(ErrorCode.InternalError, 'Internal error'));
  }

  #guard(run: () => void): void {
    try {
      run();
    } catch (error) {
      this.#logError(`weft: notification handler failed: ${(error as Error)?.stack ?? String(error)}`);
    }
  }
}
