/**
 * One client's view of the server: what it negotiated, what it declared it can do, what log level
 * it asked for, and which of its requests are still running (so they can be cancelled, and so a
 * duplicate id is refused instead of two answers going out under one id).
 *
 * A transport opens a session per connection (stdio, a WebSocket) or per Mcp-Session-Id (HTTP).
 */
import type { JsonRpcMessage, RequestId } from '../protocol/json-rpc.js';
import type { LegacyVersion } from '../protocol/versions.js';

export interface MessageSink {
  send(message: JsonRpcMessage | JsonRpcMessage[]): void;
}

export class Session {
  protocolVersion: LegacyVersion | undefined;
  clientCapabilities: Record<string, unknown> = {};
  clientInfo: Record<string, unknown> | undefined;
  initialized = false;
  /** Index into LOG_LEVELS of the least severe level to send; 0 sends everything. */
  minLogLevel = 0;
  readonly #inFlight = new Map<RequestId, AbortController>();
  #closed = false;

  constructor(
    /** Where messages that answer no particular request go (list_changed, resource updates). */
    readonly sink: MessageSink,
    readonly id?: string,
  ) {}

  get closed(): boolean {
    return this.#closed;
  }

  get inFlightCount(): number {
    return this.#inFlight.size;
  }

  isInFlight(id: RequestId): boolean {
    return this.#inFlight.has(id);
  }

  /** Marks a request as running; its signal aborts when the client cancels it or the session closes. */
  begin(id: RequestId): AbortSignal {
    const controller = new AbortController();
    this.#inFlight.set(id, controller);
    return controller.signal;
  }

  end(id: RequestId): void {
    this.#inFlight.delete(id);
  }

  cancel(id: RequestId, reason: 'cancelled' | 'shutdown' = 'cancelled'): boolean {
    const controller = this.#inFlight.get(id);
    if (!controller) return false;
    controller.abort(reason);
    return true;
  }

  /** Cancels everything still running, e.g. when the connection is gone or the server stops. */
  cancelAll(reason: 'cancelled' | 'shutdown'): void {
    for (const controller of this.#inFlight.values()) controller.abort(reason);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.cancelAll('cancelled');
  }
}
