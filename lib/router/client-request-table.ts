/**
 * Requests the server sends to the client, waiting for their answers.
 *
 * Ids are minted here, in the server's own id space (the client's ids never mix with these: a
 * JSON-RPC peer matches responses against the requests *it* sent). Each pending entry resolves
 * exactly once: with the result, with the client's error, when the caller aborts, or when the
 * session closes. An abort tells the client with `notifications/cancelled` so it can stop asking
 * its user or its model.
 */
import { type JsonRpcResponse, notification, type RequestId } from '../protocol/json-rpc.js';
import { encodeJson } from '../protocol/message-encoding.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import type { MessageSink } from './session.js';

interface Pending {
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

export class ClientRequestTable {
  readonly #pending = new Map<RequestId, Pending>();
  #nextId = 0;

  get size(): number {
    return this.#pending.size;
  }

  send(
    method: string,
    params: Record<string, unknown> | undefined,
    signal: AbortSignal | undefined,
    via: MessageSink,
  ): Promise<unknown> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    // Checked before anything is pending: a request the transport cannot encode would be dropped
    // there, and its caller would wait for an answer that can never come.
    const json = params === undefined ? undefined : encodeJson(params);
    if (json !== undefined && !json.ok) {
      return Promise.reject(
        ProtocolError.invalidParams(
          `Cannot send ${method}: its params cannot be sent as JSON: ${json.problem}`,
        ),
      );
    }
    const id = `weft-${++this.#nextId}`;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        if (!this.#pending.delete(id)) return;
        via.send(notification('notifications/cancelled', { requestId: id, reason: String(signal?.reason) }));
        reject(signal?.reason);
      };
      this.#pending.set(id, {
        resolve: (result) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(result);
        },
        reject: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      const request = { jsonrpc: '2.0' as const, id, method, ...(params === undefined ? {} : { params }) };
      via.send(request);
    });
  }

  settle(response: JsonRpcResponse): boolean {
    const pending = this.#pending.get(response.id as RequestId);
    if (!pending) return false;
    this.#pending.delete(response.id as RequestId);
    if ('error' in response) {
      const { code, message, data } = response.error;
      pending.reject(new ProtocolError(code, `The client refused: ${message}`, data));
    } else {
      pending.resolve(response.result);
    }
    return true;
  }

  /**
   * `error` is made only when something waits: a modern HTTP request is a session of its own, closed
   * as it is answered, and an Error (with its stack trace) built for every one of them cost about a
   * twentieth of the server's time per echo.
   */
  rejectAll(error: () => unknown): void {
    if (this.#pending.size === 0) return;
    const all = [...this.#pending.values()];
    this.#pending.clear();
    const reason = error();
    for (const pending of all) pending.reject(reason);
  }
}
