/**
 * How the WebSocket transport closes a socket for a reason of its own, in close codes and reasons a
 * client can act on: credentials that expired or were refused (rights-watch.ts), and a socket closed
 * to make room for another caller when every connection is taken.
 */
import type { Principal } from '../auth/principal.js';
import { type RightsLapse, TOKEN_EXPIRED } from './rights-watch.js';

/** The close code and reason of a connection whose principal's credentials expired. */
export const TOKEN_EXPIRED_CLOSE = { code: 1008, reason: 'token expired' } as const;
/** The close code and reason of a socket closed to make room for another caller at maxConnections. */
export const MADE_ROOM_CLOSE = {
  code: 1013,
  reason: 'closed to make room for another caller (maxConnections); reconnect later',
} as const;

export function isExpired(principal: Principal): boolean {
  return principal.expiresAt !== undefined && Date.now() >= principal.expiresAt;
}

/**
 * The close of a connection whose rights lapsed: 1008 (policy violation) for a token expired or
 * refused, 1013 (try again later) when it could not be checked now, 1011 when the hook failed. The
 * reason says which, within the 123 bytes a close frame allows.
 */
export function closeFor(lapse: RightsLapse): { code: number; reason: string } {
  if (lapse === TOKEN_EXPIRED) return TOKEN_EXPIRED_CLOSE;
  const code = lapse.status === 503 ? 1013 : lapse.status === 500 ? 1011 : 1008;
  if (Buffer.byteLength(lapse.message) <= 123) return { code, reason: lapse.message };
  let cut = lapse.message.slice(0, 120);
  while (Buffer.byteLength(cut) > 120) cut = cut.slice(0, -1);
  return { code, reason: `${cut}…` };
}
