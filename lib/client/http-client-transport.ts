/**
 * The client's Streamable HTTP transport, for both eras' wire rules.
 *
 * Every message is one POST. The answer comes back as one JSON body or as an SSE stream carrying
 * the request's notifications (and, legacy era, the server's own requests) before its response.
 * - Headers: `MCP-Protocol-Version` (the message's own `_meta` version in the modern era, the
 *   negotiated one in the legacy era), `Mcp-Session-Id` once a legacy server minted one, and for a
 *   modern message `Mcp-Method` plus `Mcp-Name` (the tool or prompt name, the resource URI, the task
 *   id) written with the spec's header encoding; the client's `Mcp-Param-*` come in `options.headers`.
 * - Cancel: in the modern era closing a request's response stream IS the cancel, so an aborted
 *   signal aborts the fetch; in the legacy era the client posts `notifications/cancelled`.
 * - A legacy session also gets the standalone GET stream (list changes, server requests outside a
 *   call); a server that answers 405 has none, which is allowed.
 * - Authorization: a `token` provider is asked before every POST, so a refreshed token is used as
 *   soon as it exists.
 */
import { META, MODERN_VERSIONS } from '../protocol/eras.js';
import type { JsonRpcMessage } from '../protocol/json-rpc.js';
import { encodeHeaderValue } from '../protocol/mcp-param-headers.js';
import type { ClientTransport, SendOptions, TransportReceiver } from './client-transport.js';
import { readSse } from './sse-reader.js';

/** Gives the bearer token for the next request (undefined: send none). */
export type TokenProvider = () => string | undefined | Promise<string | undefined>;

export interface HttpClientOptions {
  /** Extra headers on every request (an API key, a tenant). */
  headers?: Readonly<Record<string, string>>;
  /** Sent as `Authorization: Bearer <token>`; asked before each request. */
  token?: TokenProvider;
  /** Open the legacy era's standalone GET stream once a session exists (default true). */
  openServerStream?: boolean;
}

/** Which parameter names the modern `Mcp-Name` header for a method. */
const NAME_PARAM: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

const isModernVersion = (version: unknown): version is string =>
  typeof version === 'string' && (MODERN_VERSIONS as readonly string[]).includes(version);

export class HttpClientTransport implements ClientTransport {
  readonly kind = 'http';
  readonly url: URL;
  readonly #options: HttpClientOptions;
  #receiver: TransportReceiver | undefined;
  #protocolVersion: string | undefined;
  #sessionId: string | undefined;
  #serverStream: AbortController | undefined;
  readonly #inFlight = new Set<AbortController>();
  #closed = false;

  constructor(url: string | URL, options: HttpClientOptions = {}) {
    this.url = new URL(url);
    if (this.url.protocol !== 'http:' && this.url.protocol !== 'https:') {
      throw new TypeError(`HttpClientTransport needs an http(s) URL, got ${this.url.href}`);
    }
    this.#options = options;
  }

  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  async start(receiver: TransportReceiver): Promise<void> {
    this.#receiver = receiver;
  }

  setProtocolVersion(protocolVersion: string): void {
    this.#protocolVersion = protocolVersion;
  }

  cancelsByClosingStream(protocolVersion: string | undefined): boolean {
    return isModernVersion(protocolVersion);
  }

  async #headers(message: JsonRpcMessage | undefined, extra?: Readonly<Record<string, string>>) {
    const headers: Record<string, string> = {
      ...this.#options.headers,
      accept: 'application/json, text/event-stream',
    };
    const token = await this.#options.token?.();
    if (token) headers.authorization = `Bearer ${token}`;
    const params = message && 'params' in message ? message.params : undefined;
    const meta = params?._meta as Record<string, unknown> | undefined;
    const bodyVersion = meta?.[META.protocolVersion];
    if (isModernVersion(bodyVersion) && message && 'method' in message) {
      headers['mcp-protocol-version'] = bodyVersion;
      headers['mcp-method'] = message.method;
      const key = NAME_PARAM[message.method];
      const name = key === undefined ? undefined : params?.[key];
      if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
      Object.assign(headers, extra);
    } else if (this.#protocolVersion !== undefined) {
      headers['mcp-protocol-version'] = this.#protocolVersion;
    }
    if (this.#sessionId !== undefined) headers['mcp-session-id'] = this.#sessionId;
    return headers;
  }

  async send(message: JsonRpcMessage, options: SendOptions = {}): Promise<void> {
    if (this.#closed) throw new Error(`the connection to ${this.url.href} is closed`);
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) return;
    this.#inFlight.add(controller);
    try {
      const headers = await this.#headers(message, options.headers);
      headers['content-type'] = 'application/json';
      const response = await fetch(this.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(message),
        signal: controller.signal,
      });
      const minted = response.headers.get('mcp-session-id');
      const isInitialize = 'method' in message && message.method === 'initialize';
      if (minted !== null && isInitialize) {
        this.#sessionId = minted;
        const version = response.headers.get('mcp-protocol-version');
        if (version) this.#protocolVersion = version;
      }
      await this.#readAnswer(response, message);
      if (isInitialize && minted !== null && this.#options.openServerStream !== false) {
        // Opened once the session exists; the client's `notifications/initialized` may race it,
        // which the spec allows (the server sends nothing on it before it is initialized).
        queueMicrotask(() => this.#openServerStream());
      }
    } catch (error) {
      if (controller.signal.aborted) return;
      throw error instanceof Error && error.name !== 'TypeError'
        ? error
        : new Error(`POST ${this.url.href} failed: ${(error as Error).message}`, { cause: error });
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      this.#inFlight.delete(controller);
    }
  }

  async #readAnswer(response: Response, message: JsonRpcMessage): Promise<void> {
    const type = response.headers.get('content-type') ?? '';
    const id = 'id' in message && 'method' in message ? message.id : undefined;
    if (response.status === 202 || (response.status === 200 && response.body === null)) return;
    if (type.includes('text/event-stream') && response.body) {
      let answered = false;
      for await (const event of readSse(response.body)) {
        if (event.event !== 'message' || event.data === '') continue;
        const parsed = JSON.parse(event.data) as JsonRpcMessage;
        if (id !== undefined && 'id' in parsed && parsed.id === id && !('method' in parsed)) answered = true;
        this.#receiver?.message(parsed);
      }
      if (id !== undefined && !answered) {
        throw new Error(
          `the response stream of ${(message as { method: string }).method} ended before its answer`,
        );
      }
      return;
    }
    const text = await response.text();
    if (type.includes('application/json') && text !== '') {
      const parsed = JSON.parse(text) as JsonRpcMessage | JsonRpcMessage[];
      for (const one of Array.isArray(parsed) ? parsed : [parsed]) {
        // A server that refuses the POST itself (a legacy server asked before initialize, a bad
        // header) may answer with `id: null`; the answer is still this request's.
        if (id !== undefined && 'error' in one && one.id === null) one.id = id;
        this.#receiver?.message(one);
      }
      return;
    }
    if (response.status === 404 && this.#sessionId !== undefined) {
      const error = new Error(`the server at ${this.url.href} no longer knows session ${this.#sessionId}`);
      this.#sessionId = undefined;
      this.#receiver?.closed(error);
      throw error;
    }
    if (!response.ok) {
      throw new Error(
        `POST ${this.url.href} answered HTTP ${response.status}${text ? `: ${text.slice(0, 300)}` : ''}`,
      );
    }
  }

  async #openServerStream(): Promise<void> {
    if (this.#closed || this.#serverStream) return;
    const controller = new AbortController();
    this.#serverStream = controller;
    try {
      const headers = await this.#headers(undefined);
      headers.accept = 'text/event-stream';
      const response = await fetch(this.url, { method: 'GET', headers, signal: controller.signal });
      if (!response.ok || !response.body) {
        await response.body?.cancel();
        return;
      }
      for await (const event of readSse(response.body)) {
        if (event.event === 'message' && event.data !== '') {
          this.#receiver?.message(JSON.parse(event.data) as JsonRpcMessage);
        }
      }
    } catch {
      // The standalone stream is best effort: its loss costs list-change notifications only.
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#serverStream?.abort();
    for (const controller of this.#inFlight) controller.abort();
    if (this.#sessionId !== undefined) {
      const headers = await this.#headers(undefined).catch(() => ({}) as Record<string, string>);
      await fetch(this.url, { method: 'DELETE', headers })
        .then((response) => response.body?.cancel())
        .catch(() => {});
      this.#sessionId = undefined;
    }
    this.#receiver?.closed();
  }
}
