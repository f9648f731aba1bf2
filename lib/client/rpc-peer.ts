/**
 * JSON-RPC bookkeeping over one `ClientTransport`: ids, the requests waiting for an answer, their
 * timeouts and cancels, and routing what arrives (answers to their waiters, server requests and
 * notifications to the client).
 *
 * A cancel is decided here, once: the waiter is rejected at once (whatever the server says later is
 * dropped), and the server is told in the way the transport and era call for: its response stream
 * closed (modern Streamable HTTP) or `notifications/cancelled` sent. Nothing of MCP's methods lives
 * here; the era and the envelope are the client's.
 */
import type { JsonRpcMessage, JsonRpcRequest, RequestId } from '../protocol/json-rpc.js';
import { ConnectionClosedError, McpError, RequestTimeoutError } from './client-errors.js';
import type { ClientTransport } from './client-transport.js';

export interface PeerRequestOptions {
  signal?: AbortSignal;
  /** Stop waiting (and cancel) after this many ms; 0 or absent: wait as long as it takes. */
  timeoutMs?: number;
  /** Extra per-message headers (HTTP `Mcp-Param-*`). */
  headers?: Readonly<Record<string, string>>;
}

export interface PeerHandlers {
  /** A request from the server (legacy era): its answer, or a throw (an McpError keeps its code). */
  request(method: string, params: Record<string, unknown> | undefined): Promise<unknown>;
  notification(method: string, params: Record<string, unknown> | undefined): void;
  closed(error: Error | undefined): void;
}

interface Waiter {
  method: string;
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

export class RpcPeer {
  readonly transport: ClientTransport;
  /** The version requests are sent at: decides how a cancel reaches the server. */
  protocolVersion: string | undefined;
  readonly #handlers: PeerHandlers;
  readonly #waiting = new Map<RequestId, Waiter>();
  #nextId = 1;
  #closedError: Error | undefined;
  #closed = false;

  constructor(transport: ClientTransport, handlers: PeerHandlers) {
    this.transport = transport;
    this.#handlers = handlers;
  }

  get closed(): boolean {
    return this.#closed;
  }

  start(): Promise<void> {
    return this.transport.start({
      message: (message) => this.#receive(message),
      closed: (error) => this.#onClosed(error),
    });
  }

  request(
    method: string,
    params: Record<string, unknown>,
    options: PeerRequestOptions = {},
  ): Promise<unknown> {
    if (this.#closed) {
      return Promise.reject(
        new ConnectionClosedError(this.#closedMessage(method), { cause: this.#closedError }),
      );
    }
    const { signal, timeoutMs } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = this.#nextId++;
    const message: JsonRpcRequest = { jsonrpc: '2.0', id, method, params };
    const stream = new AbortController();
    const version = this.protocolVersion ?? versionOf(params);
    return new Promise<unknown>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = () => {
        this.#waiting.delete(id);
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const cancel = (reason: unknown, why: string) => {
        if (!this.#waiting.has(id)) return;
        finish();
        reject(reason);
        if (this.transport.cancelsByClosingStream(version)) stream.abort();
        else this.notify('notifications/cancelled', { requestId: id, reason: why }).catch(() => {});
      };
      const onAbort = () => cancel(signal?.reason, 'the client cancelled the request');
      signal?.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs !== undefined && timeoutMs > 0) {
        timer = setTimeout(
          () => cancel(new RequestTimeoutError(method, timeoutMs), `no answer within ${timeoutMs} ms`),
          timeoutMs,
        );
      }
      this.#waiting.set(id, {
        method,
        resolve: (result) => {
          finish();
          resolve(result);
        },
        reject: (error) => {
          finish();
          reject(error);
        },
      });
      this.transport
        .send(message, { headers: options.headers, signal: stream.signal })
        .catch((error: unknown) => {
          const waiter = this.#waiting.get(id);
          waiter?.reject(error instanceof Error ? error : new Error(String(error)));
        });
    });
  }

  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    if (this.#closed) return Promise.resolve();
    const message: JsonRpcMessage =
      params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    return this.transport.send(message);
  }

  #receive(message: JsonRpcMessage): void {
    if ('method' in message) {
      if ('id' in message && message.id !== undefined && message.id !== null) {
        void this.#answer(message as JsonRpcRequest);
      } else {
        this.#handlers.notification(message.method, message.params);
      }
      return;
    }
    const waiter = message.id === null ? undefined : this.#waiting.get(message.id);
    if (!waiter) return; // a late answer to a request already settled (cancelled, timed out): dropped
    if ('error' in message) {
      const { code, message: text, data } = message.error;
      waiter.reject(new McpError(code, text, data));
    } else {
      waiter.resolve(message.result);
    }
  }

  async #answer(request: JsonRpcRequest): Promise<void> {
    let reply: JsonRpcMessage;
    try {
      const result = await this.#handlers.request(request.method, request.params);
      reply = { jsonrpc: '2.0', id: request.id, result };
    } catch (error) {
      const code = error instanceof McpError ? error.code : -32603;
      const data = error instanceof McpError ? error.data : undefined;
      const text = error instanceof Error ? error.message : String(error);
      reply = {
        jsonrpc: '2.0',
        id: request.id,
        error: data === undefined ? { code, message: text } : { code, message: text, data },
      };
    }
    await this.transport.send(reply).catch(() => {});
  }

  #closedMessage(method: string): string {
    const why = this.#closedError ? `: ${this.#closedError.message}` : '';
    return `cannot complete ${method}, the ${this.transport.kind} connection is closed${why}`;
  }

  #onClosed(error: Error | undefined): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#closedError = error;
    for (const [id, waiter] of [...this.#waiting]) {
      this.#waiting.delete(id);
      waiter.reject(new ConnectionClosedError(this.#closedMessage(waiter.method), { cause: error }));
    }
    this.#handlers.closed(error);
  }

  async close(): Promise<void> {
    await this.transport.close();
    this.#onClosed(undefined);
  }
}

function versionOf(params: Record<string, unknown>): string | undefined {
  const meta = params._meta as Record<string, unknown> | undefined;
  const version = meta?.['io.modelcontextprotocol/protocolVersion'];
  return typeof version === 'string' ? version : undefined;
}
