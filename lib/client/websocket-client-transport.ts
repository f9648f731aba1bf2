/**
 * The client's WebSocket transport: one JSON-RPC message per text frame, subprotocol `mcp` (what
 * weft and the official SDK serve). A socket has no per-message headers, so `Mcp-Param-*` are not
 * sent and a cancel is always `notifications/cancelled`. The token provider is asked once, for the
 * upgrade request's `Authorization` header.
 */
import { type RawData, WebSocket } from 'ws';
import type { JsonRpcMessage } from '../protocol/json-rpc.js';
import type { ClientTransport, SendOptions, TransportReceiver } from './client-transport.js';
import type { TokenProvider } from './http-client-transport.js';

export interface WebSocketClientOptions {
  headers?: Readonly<Record<string, string>>;
  token?: TokenProvider;
}

export class WebSocketClientTransport implements ClientTransport {
  readonly kind = 'websocket';
  readonly url: URL;
  readonly #options: WebSocketClientOptions;
  #socket: WebSocket | undefined;
  #closing = false;

  constructor(url: string | URL, options: WebSocketClientOptions = {}) {
    this.url = new URL(url);
    if (this.url.protocol !== 'ws:' && this.url.protocol !== 'wss:') {
      throw new TypeError(`WebSocketClientTransport needs a ws(s) URL, got ${this.url.href}`);
    }
    this.#options = options;
  }

  async start(receiver: TransportReceiver): Promise<void> {
    const headers: Record<string, string> = { ...this.#options.headers };
    const token = await this.#options.token?.();
    if (token) headers.authorization = `Bearer ${token}`;
    const socket = new WebSocket(this.url, 'mcp', { headers });
    this.#socket = socket;
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', (error) => reject(new Error(`could not open ${this.url.href}: ${error.message}`)));
      socket.once('unexpected-response', (_request, response) => {
        reject(new Error(`${this.url.href} refused the WebSocket upgrade with HTTP ${response.statusCode}`));
        response.resume();
      });
    });
    socket.on('message', (data: RawData, isBinary: boolean) => {
      if (isBinary) return;
      try {
        receiver.message(JSON.parse(data.toString()) as JsonRpcMessage);
      } catch {
        process.emitWarning('weft/client: ignored a WebSocket frame that is not JSON');
      }
    });
    socket.on('error', () => {});
    socket.once('close', (code, reason) => {
      receiver.closed(
        this.#closing
          ? undefined
          : new Error(`${this.url.href} closed the socket (${code} ${reason.toString()})`),
      );
    });
  }

  send(message: JsonRpcMessage, _options?: SendOptions): Promise<void> {
    const socket = this.#socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      return Promise.reject(new Error(`the WebSocket to ${this.url.href} is not open`));
    }
    return new Promise<void>((resolve, reject) => {
      socket.send(JSON.stringify(message), (error) => {
        if (error) reject(new Error(`could not send on ${this.url.href}: ${error.message}`));
        else resolve();
      });
    });
  }

  cancelsByClosingStream(): boolean {
    return false;
  }

  async close(): Promise<void> {
    const socket = this.#socket;
    if (!socket || this.#closing) return;
    this.#closing = true;
    if (socket.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      socket.once('close', () => resolve());
      socket.close(1000);
      setTimeout(() => {
        socket.terminate();
        resolve();
      }, 1000).unref();
    });
  }
}
