/**
 * The WebSocket wire: one JSON-RPC message per text frame, subprotocol `mcp`.
 */
import WebSocket from 'ws';
import type { Wire, WireMessage } from './wire.js';

export class WsWire implements Wire {
  onMessage: (message: WireMessage) => void = () => {};
  onClose: (reason: string) => void = () => {};
  readonly #socket: WebSocket;
  #closed = false;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as WireMessage | WireMessage[];
      if (Array.isArray(message)) for (const item of message) this.onMessage(item);
      else this.onMessage(message);
    });
    socket.on('close', (code) => {
      if (!this.#closed) this.onClose(`WebSocket closed (code ${code})`);
    });
  }

  static open(url: string): Promise<WsWire> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, 'mcp', { perMessageDeflate: false });
      socket.once('open', () => resolve(new WsWire(socket)));
      socket.once('error', reject);
    });
  }

  send(message: WireMessage): void {
    this.#socket.send(JSON.stringify(message));
  }

  negotiated(): void {}

  async close(): Promise<void> {
    this.#closed = true;
    this.#socket.close();
  }
}
