/**
 * The main-thread router: JSON-RPC in, JSON-RPC out, for every transport.
 *
 * It validates the envelope, refuses duplicate in-flight ids, dispatches through a method table,
 * and turns thrown ProtocolErrors into error responses. Any other exception is a bug: the client gets
 * a plain -32603 and the detail goes to the server log. Nothing here blocks: slow work is the
 * engine's, and a method handler that returns a promise is answered when it settles.
 *
 * Every result is encoded here, once, before it is sent: a result that cannot be sent as JSON is a
 * -32603 under its id (detail in the log) instead of a throw inside a transport and a lost call.
 * tools/call hands over results it already encoded, having turned such failures into tool errors.
 */

import { ErrorCode } from '../protocol/error-codes.js';
import { classify, failure, type JsonRpcMessage, type JsonRpcRequest } from '../protocol/json-rpc.js';
import { EncodedResult, encodedSuccess, encodeJson } from '../protocol/message-encoding.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import { allowsBatches } from '../protocol/versions.js';
import { type MethodHandler, NO_RESPONSE } from './method-table.js';
import type { MessageSink, Session } from './session.js';

export type NotificationHandler = (session: Session, params: Record<string, unknown>) => void;

export class Router {
  readonly #methods = new Map<string, MethodHandler>();
  readonly #notifications = new Map<string, NotificationHandler>();
  readonly #logError: (message: string) => void;

  constructor(logError: (message: string) => void) {
    this.#logError = logError;
  }

  method(name: string, handler: MethodHandler): this {
    this.#methods.set(name, handler);
    return this;
  }

  notification(name: string, handler: NotificationHandler): this {
    this.#notifications.set(name, handler);
    return this;
  }

  /**
   * Handles one parsed JSON value (a message or a batch). Responses go to `sink`; the promise
   * settles when every request in it has been answered (or cancelled).
   */
  receive(session: Session, value: unknown, sink: MessageSink = session.sink): Promise<void> | undefined {
    if (Array.isArray(value)) return this.#batch(session, value, sink);
    return this.#one(session, value, sink);
  }

  async #batch(session: Session, values: unknown[], sink: MessageSink): Promise<void> {
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
    await Promise.all(values.map((value) => this.#one(session, value, collect)));
    if (responses.length > 0) sink.send(responses);
  }

  #one(session: Session, value: unknown, sink: MessageSink): Promise<void> | undefined {
    const message = classify(value);
    switch (message.kind) {
      case 'invalid':
        sink.send(failure(message.id, message.error));
        return undefined;
      case 'notification': {
        const handler = this.#notifications.get(message.message.method);
        // Unknown notifications are ignored, as JSON-RPC requires (there is no one to tell).
        if (handler) this.#guard(() => handler(session, message.message.params ?? {}));
        return undefined;
      }
      case 'response':
        // An answer to a server-to-client request (elicitation, sampling...). One that matches
        // nothing pending (late, after a cancel, or unknown) has no one to tell, so it is dropped.
        session.settle(message.message);
        return undefined;
      case 'request':
        return this.#request(session, message.message, sink);
    }
  }

  #request(session: Session, request: JsonRpcRequest, sink: MessageSink): Promise<void> | undefined {
    const handler = this.#methods.get(request.method);
    if (!handler) {
      sink.send(failure(request.id, ProtocolError.methodNotFound(request.method)));
      return undefined;
    }
    if (session.isInFlight(request.id)) {
      sink.send(
        failure(
          request.id,
          ProtocolError.invalidRequest(
            `Request id ${JSON.stringify(request.id)} is already in flight; use a new id for every pending request`,
          ),
        ),
      );
      return undefined;
    }
    let result: unknown;
    try {
      result = handler({ session, params: request.params ?? {}, request, sink });
    } catch (error) {
      sink.send(this.#errorResponse(request, error));
      return undefined;
    }
    if (result instanceof Promise) {
      return result.then(
        (value) => this.#answer(request, value, sink),
        (error) => sink.send(this.#errorResponse(request, error)),
      );
    }
    this.#answer(request, result, sink);
    return undefined;
  }

  #answer(request: JsonRpcRequest, value: unknown, sink: MessageSink): void {
    if (value === NO_RESPONSE) return;
    if (value instanceof EncodedResult) {
      sink.send(encodedSuccess(request.id, value.value, value.text));
      return;
    }
    const json = encodeJson(value);
    if (json.ok) {
      sink.send(encodedSuccess(request.id, value, json.text));
      return;
    }
    this.#logError(`weft: the result of ${request.method} cannot be sent as JSON: ${json.problem}`);
    sink.send(
      failure(
        request.id,
        new ProtocolError(
          ErrorCode.InternalError,
          'Internal error: the server could not encode its result (details are in the server log)',
        ),
      ),
    );
  }

  #errorResponse(request: JsonRpcRequest, error: unknown) {
    if (error instanceof ProtocolError) return failure(request.id, error);
    this.#logError(`weft: ${request.method} failed: ${(error as Error)?.stack ?? String(error)}`);
    return failure(request.id, new ProtocolError(ErrorCode.InternalError, 'Internal error'));
  }

  #guard(run: () => void): void {
    try {
      run();
    } catch (error) {
      this.#logError(`weft: notification handler failed: ${(error as Error)?.stack ?? String(error)}`);
    }
  }
}
