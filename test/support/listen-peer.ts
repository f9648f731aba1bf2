/**
 * A WebSocket peer that keeps every message it receives, and the `subscriptions/listen` request the
 * listen suites flood with: the bounds suites count its acknowledgements and refusals.
 */
import type { WebSocket } from 'ws';
import type { Wire } from '../transports/modern-http-peer.js';
import { envelope } from '../transports/modern-http-peer.js';
import { openSocket } from './websocket-upgrade.js';

export async function keepingPeer(
  url: string,
  options: ConstructorParameters<typeof WebSocket>[2] = {},
): Promise<{ socket: WebSocket; received: Wire[] }> {
  const socket = await openSocket(url, { handshakeTimeout: 10_000, ...options });
  const received: Wire[] = [];
  socket.on('message', (data) => received.push(JSON.parse(String(data))));
  return { socket, received };
}

/** A listen for tools/list_changed under id `id`, as text to send. */
export const listenRequest = (id: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: { notifications: { toolsListChanged: true }, _meta: envelope() },
  });

export const acknowledgements = (received: Wire[]) =>
  received.filter((message) => message.method === 'notifications/subscriptions/acknowledged').length;
