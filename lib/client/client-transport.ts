/**
 * The contract between `weft-mcp/client` and the wire it talks over.
 *
 * A transport moves whole JSON-RPC messages and knows nothing of MCP methods, eras or tools: the
 * client owns ids, pending requests, the envelope and the era (client/era-session.ts). What differs
 * between wires is kept behind four facts, so one client drives stdio, Streamable HTTP (both eras'
 * rules), WebSocket and an in-process server alike:
 *   - `start(receiver)` opens it and names who hears what arrives (responses, notifications, and
 *     the legacy era's server-to-client requests), and who is told when it ends;
 *   - `send(message, options)` hands over one message. Per-message HTTP headers (`Mcp-Param-*`)
 *     ride in `options.headers`; a transport without headers ignores them. A request's
 *     `options.signal` is its cancel;
 *   - `cancelsByClosingStream(version)` says how a cancel reaches the server: true where the
 *     request has a stream of its own whose closing IS the cancel (modern Streamable HTTP), false
 *     where the client must send `notifications/cancelled` itself (stdio, WebSocket, legacy HTTP,
 *     in-process);
 *   - `setProtocolVersion(version)` tells a transport that writes the version into headers
 *     (HTTP's `MCP-Protocol-Version`) what `initialize` negotiated.
 *
 * An in-process transport (for tests) implements this over `McpServer.connect(sink)`: `send` hands
 * the message to `connection.receive(message)`, the sink's `send` calls `receiver.message`, and
 * `cancelsByClosingStream` is false. This interface is meant to stay stable: other rooms build on it.
 */
import type { JsonRpcMessage } from '../protocol/json-rpc.js';

/** Who hears a transport: every message the server sends, and the transport's end. */
export interface TransportReceiver {
  /** One message from the server: a response, a notification, or (legacy era) a server request. */
  message(message: JsonRpcMessage): void;
  /**
   * The transport ended: the process exited, the socket closed, the session expired. `error` says
   * why when it was not the client's own `close()`; pending requests then fail with it.
   */
  closed(error?: Error): void;
}

export interface SendOptions {
  /**
   * Extra headers for this message (the client's `Mcp-Param-*` mirrors of `x-mcp-header`
   * arguments). Header-less transports ignore them; `Mcp-Method`, `Mcp-Name` and the version are
   * the HTTP transport's own business, derived from the message.
   */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * For a request: aborted once the client gives up on it. A transport whose
   * `cancelsByClosingStream` is true closes that request's response stream (which is the cancel);
   * the others may ignore it, since the client then sends `notifications/cancelled`.
   */
  readonly signal?: AbortSignal;
}

export interface ClientTransport {
  /** A short name for messages and errors: 'stdio', 'http', 'websocket', 'memory'. */
  readonly kind: string;
  /** Opens the wire; resolves once `send` may be called. Called once. */
  start(receiver: TransportReceiver): Promise<void>;
  /**
   * Hands one message to the wire; answers always arrive through `receiver.message`. Resolves once
   * the transport is done with the message (stdio: written; HTTP: its response body read to the end).
   * Rejects, with an Error saying why, when it could not be delivered or (HTTP) its response ended
   * without the answer; the client then fails that request with it. An aborted `signal` is no error.
   */
  send(message: JsonRpcMessage, options?: SendOptions): Promise<void>;
  /** True when closing a request's own response stream is how a request is cancelled at `version`. */
  cancelsByClosingStream(protocolVersion: string | undefined): boolean;
  /** The version `initialize` negotiated (legacy era), for transports that write it into headers. */
  setProtocolVersion?(protocolVersion: string): void;
  /** Ends the wire (HTTP: DELETE the legacy session; stdio: end stdin, then stop the process). */
  close(): Promise<void>;
}
