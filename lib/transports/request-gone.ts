/**
 * When an HTTP request's client is gone: its response closed, or its connection did.
 *
 * Node queues the response of a request that reaches a kept-alive connection while the answer
 * before it is still being written (a client that reuses its socket the moment the last byte
 * arrives, or one that pipelines): until that earlier answer is done the response has no socket,
 * and when the client leaves meanwhile Node tells it nothing, no 'close'. So whoever must learn that
 * the client left listens on the connection too, and asks the request's socket, never the
 * response's, whether it is already closed. One listener per connection tells every request
 * waiting on it: a client that pipelines many requests adds no listener per request to its socket.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Calls `gone` once the response closes or the request's connection does (at once when the
 * connection already has); returns what stops listening, for when the exchange ends first.
 */
export function whenGone(request: IncomingMessage, response: ServerResponse, gone: () => void): () => void {
  // Under a framework's or a test's in-process driver the request may carry a stand-in for a
  // socket that is no event emitter: then the response's close is all there is to hear.
  const socket = request.socket as Socket | null;
  const connection = typeof socket?.once === 'function' ? socket : undefined;
  // Not derivable from the listeners: the connection's close emits the response's from inside
  // its own emit, which has already taken its list of listeners, so removing ours comes too late.
  let called = false;
  const once = () => {
    if (called) return;
    called = true;
    stop();
    gone();
  };
  response.once('close', once);
  const stopWaiting = connection && waitForClose(connection, once);
  const stop = () => {
    response.off('close', once);
    stopWaiting?.();
  };
  if (socket?.destroyed === true) once();
  return stop;
}

/** The requests waiting for each connection's close, told by the connection's one listener. */
const waitingFor = new WeakMap<Socket, Set<() => void>>();

/** Calls `listener` when `connection` closes; returns what stops waiting. */
function waitForClose(connection: Socket, listener: () => void): () => void {
  const waiting = waitersOf(connection);
  waiting.add(listener);
  return () => waiting.delete(listener);
}

/** Who waits for `connection` to close, its one 'close' listener added on the first. */
function waitersOf(connection: Socket): Set<() => void> {
  const known = waitingFor.get(connection);
  if (known !== undefined) return known;
  const waiting = new Set<() => void>();
  waitingFor.set(connection, waiting);
  connection.once('close', () => {
    waitingFor.delete(connection);
    for (const waiter of [...waiting]) waiter();
  });
  return waiting;
}
