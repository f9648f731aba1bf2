/**
 * A JSON-RPC peer wired straight into an McpServer through `connect()`: no process, no pipe, so
 * router and engine tests see exactly what the server sends, including notifications.
 */
import type { McpServer, Principal } from '../../lib/index.js';
import type { JsonRpcMessage } from '../../lib/protocol/json-rpc.js';
import type { Connection } from '../../lib/transports/connection.js';

export interface Reply {
  id?: unknown;
  result?: Record<string, unknown> & { content?: { type: string; text?: string }[]; isError?: boolean };
  error?: { code: number; message: string };
}

export class InProcessClient {
  readonly received: JsonRpcMessage[] = [];
  /** Messages that arrived as one JSON array (batch answers), as they arrived. */
  readonly batches: JsonRpcMessage[][] = [];
  readonly #connection: Connection;
  readonly #waiting = new Map<unknown, (reply: Reply) => void>();
  #nextId = 1;

  /** `principal`: who the connection is, as if a transport's auth hook had vouched for it. */
  constructor(server: McpServer, principal?: Principal) {
    this.#connection = server.connect(
      {
        send: (message) => {
          if (Array.isArray(message)) this.batches.push(message);
          for (const one of Array.isArray(message) ? message : [message]) {
            this.received.push(one);
            if ('id' in one) this.#waiting.get(one.id)?.(one as Reply);
          }
        },
      },
      undefined,
      principal,
    );
  }

  /** Sends a raw value (anything: valid or not) and returns what the server did with it. */
  send(value: unknown): Promise<void> | undefined {
    return this.#connection.receive(value);
  }

  request(
    method: string,
    params?: Record<string, unknown>,
    id: string | number = this.#nextId++,
  ): Promise<Reply> {
    const reply = new Promise<Reply>((resolve) => this.#waiting.set(id, resolve));
    this.#connection.receive({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    return reply;
  }

  /** Resolves with the first message (already received or still to come) that matches. */
  async waitFor(match: (message: JsonRpcMessage) => boolean, timeoutMs = 10_000): Promise<JsonRpcMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error('timed out waiting for a message');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  notify(method: string, params?: Record<string, unknown>): void {
    this.#connection.receive({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
  }

  async initialize(
    protocolVersion = '2025-11-25',
    capabilities: Record<string, unknown> = {},
  ): Promise<Reply> {
    const reply = await this.request('initialize', {
      protocolVersion,
      capabilities,
      clientInfo: { name: 'test', version: '1' },
    });
    this.notify('notifications/initialized');
    return reply;
  }

  callTool(name: string, args: unknown, extra: Record<string, unknown> = {}): Promise<Reply> {
    return this.request('tools/call', { name, arguments: args, ...extra });
  }

  notifications(method: string): JsonRpcMessage[] {
    return this.received.filter((message) => 'method' in message && message.method === method);
  }

  close(): void {
    this.#connection.close();
  }
}
