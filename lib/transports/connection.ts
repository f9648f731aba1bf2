/**
 * What a transport sees of the server: open a connection with a sink for outgoing messages, feed it
 * parsed JSON values, turn outgoing messages into text, close it. Transports know nothing of tools
 * or the engine.
 */

import type { Socket } from 'node:net';
import type { Principal } from '../auth/principal.js';
import type { JsonRpcMessage } from '../protocol/json-rpc.js';
import type { JsonPiece } from '../protocol/message-encoding.js';
import type { MessageSink, PeerAddress, Session } from '../router/session.js';

export interface Connection {
  readonly session: Session;
  /**
   * Handles one parsed JSON value; settles when every request in it has been answered. `arrivedAt`
   * (`performance.now()`) is when it reached the transport, before it was read and parsed: a
   * request's deadline counts from there (arrival.ts).
   */
  receive(value: unknown, replyTo?: MessageSink, arrivedAt?: number): Promise<void> | undefined;
  /**
   * The JSON text of an outgoing message (protocol/message-encoding: never throws; undefined when
   * nothing of it can be sent, which the server has logged). Every transport writes this, and only this.
   */
  encode(message: JsonRpcMessage | JsonRpcMessage[]): string | undefined;
  /**
   * The same text as chunks to write in order (a large result's own string kept apart from its
   * envelope, so it is never copied into a joined string): for transports that write to a stream.
   */
  encodeChunks(message: JsonRpcMessage | JsonRpcMessage[]): readonly JsonPiece[] | undefined;
  /** The peer is gone: its in-flight calls are cancelled (blocking work stops). */
  close(): void;
}

/**
 * Opens a connection; `principal` is who the transport's auth hook vouched for, if anyone, `peer`
 * the socket the peer is on (network transports), and `caller` the caller key worked out at the
 * door (caller-identity.ts), which every bound and share counts the connection against.
 */
export type Connect = (
  sink: MessageSink,
  sessionId?: string,
  principal?: Principal,
  peer?: PeerAddress,
  caller?: string,
) => Connection;

/** The remote end of `socket`, when it is (still) known. */
export function peerOf(socket: Socket | undefined): PeerAddress | undefined {
  const address = socket?.remoteAddress;
  const port = socket?.remotePort;
  return address === undefined || port === undefined ? undefined : { address, port };
}
