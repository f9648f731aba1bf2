/**
 * Closing a `node:http` listener so that it ends, whatever its connections are doing. `close()`
 * alone waits for every connection to end by itself and stops the header and request timeouts that
 * would have ended a half-open request, so one client that sends half a request line keeps the
 * process up for as long as it likes. `closeAllConnections()` ends the connections the HTTP parser
 * knows of, but not sockets already handed to an upgrade (a WebSocket mid-handshake, say). So each
 * listener's sockets are tracked from `connection` on, and closing destroys every one of them.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

const tracked = new WeakMap<Server, Set<Socket>>();

/** Remembers every socket `server` accepts until it closes; call once, when the server is made. */
export function trackSockets(server: Server): void {
  if (tracked.has(server)) return;
  const sockets = new Set<Socket>();
  tracked.set(server, sockets);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
}

/**
 * Stops accepting and ends every connection (idle, busy, half-open, upgraded), resolving once the
 * listener has closed. Answers still being written are cut: call it after what had to be delivered was.
 */
export function closeListener(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    // A listener a drain already closed may still hold connections, and its `close` event may have
    // been emitted already (a callback given now would never run): end them and do not wait.
    if (server.listening) server.close(() => resolve());
    else resolve();
    server.closeAllConnections();
    for (const socket of tracked.get(server) ?? []) socket.destroy();
  });
}
