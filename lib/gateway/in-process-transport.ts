/**
 * A client transport into an McpServer of the same process, through `server.connect(sink)`: no
 * pipe and no socket, messages handed over as objects. Cancels travel as `notifications/cancelled`
 * (the connection has no per-request stream to close). Used by `server.mount(otherServer)`.
 */
import type { ClientTransport, SendOptions, TransportReceiver } from '../client/client-transport.js';
import type { JsonRpcMessage } from '../protocol/json-rpc.js';
import type { MessageSink } from '../router/session.js';
import type { Connection } from '../transports/connection.js';

/** The one thing of an McpServer this transport needs. */
export interface Connectable {
  connect(sink: MessageSink): Connection;
}

export class InProcessTransport implements ClientTransport {
  readonly kind = 'in-process';
  readonly #server: Connectable;
  #connection: Connection | undefined;
  #receiver: TransportReceiver | undefined;

  constructor(server: Connectable) {
    this.#server = server;
  }

  async start(receiver: TransportReceiver): Promise<void> {
    this.#receiver = receiver;
    this.#connection = this.#server.connect({
      send: (message) => {
        // Delivered on a later turn, as a socket would: a handler never runs inside the sender's stack.
        const messages = Array.isArray(message) ? message : [message];
        queueMicrotask(() => {
          for (const one of messages) receiver.message(structuredClone(one));
        });
      },
    });
  }

  async send(message: JsonRpcMessage, _options?: SendOptions): Promise<void> {
    const connection = this.#connection;
    if (!connection || connection.session.closed)
      throw new Error('the in-process server connection is closed');
    await connection.receive(structuredClone(message));
  }

  cancelsByClosingStream(): boolean {
    return false;
  }

  async close(): Promise<void> {
    this.#connection?.close();
    this.#connection = undefined;
    this.#receiver?.closed();
  }
}
