/**
 * A ClientTransport straight into an McpServer in the same process (`server.connect(sink)`): no
 * socket, no pipe, no port, so users' own tests (node:test, vitest) drive a server as a client
 * would, in either era.
 *
 * Messages cross as JSON text, both ways, exactly as on a wire: a result that would not survive
 * JSON does not survive here either, and neither side can reach into the other's objects. They
 * are delivered on a later microtask, never inside the call that sent them, as a wire would.
 * A cancel is `notifications/cancelled`, as on stdio.
 */
import type { Principal } from '../auth/principal.js';
import type { ClientTransport, TransportReceiver } from '../client/client-transport.js';
import type { JsonRpcMessage } from '../protocol/json-rpc.js';
import type { McpServer } from '../server.js';
import type { Connection } from '../transports/connection.js';

export interface MemoryTransportOptions {
  /** Who the server sees calling (as if an auth hook had vouched for it). */
  principal?: Principal;
}

export class MemoryClientTransport implements ClientTransport {
  readonly kind = 'memory';
  readonly #server: McpServer;
  readonly #principal: Principal | undefined;
  #connection: Connection | undefined;
  #receiver: TransportReceiver | undefined;

  constructor(server: McpServer, options: MemoryTransportOptions = {}) {
    for (const key of Object.keys(options)) {
      if (key !== 'principal')
        throw new TypeError(`MemoryClientTransport: unknown option "${key}"; known: principal`);
    }
    this.#server = server;
    this.#principal = options.principal;
  }

  async start(receiver: TransportReceiver): Promise<void> {
    if (this.#connection !== undefined) throw new Error('MemoryClientTransport: start() was already called');
    this.#receiver = receiver;
    const connection = this.#server.connect(
      {
        send: (message) => {
          const text = connection.encode(message);
          if (text === undefined) return;
          queueMicrotask(() => {
            for (const one of [JSON.parse(text) as JsonRpcMessage | JsonRpcMessage[]].flat()) {
              this.#receiver?.message(one);
            }
          });
        },
      },
      undefined,
      this.#principal,
    );
    this.#connection = connection;
  }

  async send(message: JsonRpcMessage): Promise<void> {
    const connection = this.#connection;
    if (connection === undefined) throw new Error('MemoryClientTransport: send() before start()');
    const copy = JSON.parse(JSON.stringify(message)) as unknown;
    // Answers come through the sink; what receive() resolves with is only "handled".
    connection.receive(copy)?.catch(() => undefined);
  }

  cancelsByClosingStream(): boolean {
    return false;
  }

  async close(): Promise<void> {
    const connection = this.#connection;
    const receiver = this.#receiver;
    this.#connection = undefined;
    this.#receiver = undefined;
    connection?.close();
    receiver?.closed();
  }
}
