/**
 * What a transport sees of the server: open a connection with a sink for outgoing messages, feed it
 * parsed JSON values, close it. Transports know nothing of tools or the engine.
 */
import type { Era } from '../protocol/eras.js';
import type { MessageSink, Session } from '../router/session.js';

export interface Connection {
  readonly session: Session;
  /** Handles one parsed JSON value; settles when every request in it has been answered. */
  receive(value: unknown, replyTo?: MessageSink): Promise<void> | undefined;
  /** The peer is gone: its in-flight calls are cancelled (blocking work stops). */
  close(): void;
  /**
   * Whether a request for `method` in `era` would be dispatched; false is -32601 (HTTP 404 in the
   * modern era), so a transport can route a request before handing it over.
   */
  knows(method: string, era: Era): boolean;
}

export type Connect = (sink: MessageSink, sessionId?: string) => Connection;
