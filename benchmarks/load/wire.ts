/**
 * A wire: one client-side connection to a server under test, carrying raw JSON-RPC messages.
 * stdio, Streamable HTTP and WebSocket each implement it, so every scenario runs unchanged over
 * any transport, and the load client above it never knows which one it has.
 */
export type WireMessage = Record<string, unknown>;

export interface Wire {
  /** Sends one message now (writes may be coalesced within the current tick). */
  send(message: WireMessage): void;
  /** Called for every message the server sends. */
  onMessage: (message: WireMessage) => void;
  /** Called once if the connection fails or the server goes away. */
  onClose: (reason: string) => void;
  /** Called by the client after `initialize` succeeds (HTTP needs the version for its headers). */
  negotiated(protocolVersion: string): void;
  close(): Promise<void>;
}

/** `modern-http` is Streamable HTTP in the stateless 2026-07-28 era: no handshake, an envelope per request. */
export type TransportName = 'stdio' | 'http' | 'ws' | 'modern-http';
