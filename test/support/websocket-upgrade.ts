/**
 * An MCP WebSocket (subprotocol `mcp`) opened from a test, for the suites that check the upgrade:
 * `openSocket` resolves the open socket and rejects when the upgrade is refused, naming the status;
 * `upgradeStatus` resolves the status itself (101 when it opened). Kept once so every suite reads a
 * refused upgrade the same way.
 */
import { WebSocket } from 'ws';

/** Opens `url`; rejects with `upgrade refused with <status>` when the server refuses the upgrade. */
export function openSocket(
  url: string,
  options: ConstructorParameters<typeof WebSocket>[2] = {},
): Promise<WebSocket> {
  const socket = new WebSocket(url, 'mcp', options);
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
    socket.once('unexpected-response', (_request, response) =>
      reject(new Error(`upgrade refused with ${response.statusCode}`)),
    );
  });
}

/** The status a WebSocket upgrade with `headers` was refused with, or 101 when it opened (then closed). */
export function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, 'mcp', { headers, handshakeTimeout: 10_000 });
    socket.once('open', () => {
      socket.close();
      resolve(101);
    });
    socket.once('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.once('error', reject);
  });
}
