/**
 * What a transport sees of the server: open a connection with a sink for outgoing messages, feed it
 * parsed JSON values, close it. Transports know nothing of tools or the engine.
 */
import type { MessageSink, Session } from '../router/session.js';

export interface Connection {
  readonly session: Session;
  /** Handles one parsed JSON value; settles when every request in it has been answered. */
  receive(value: unknown, replyTo?: MessageSink): Promise<void> | undefined;
  /** The peer is gone: its in-flight calls are cancelled (blocking work stops). */
  close(): void;
}

export type Connect = (sink: MessageSink, sessionId?: string) => Connection;
