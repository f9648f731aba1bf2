/**
 * When the audience is not configured, it is derived from the request's `Host`; this module decides
 * whether that Host may be trusted for it. A Host is whatever the client wrote, so it is taken only
 * when it names the very address and port the request arrived at (or `localhost` for a loopback
 * address): otherwise a token the same authorization server issued for another local resource
 * (`aud=http://127.0.0.1:4444/mcp`) would pass with `Host: 127.0.0.1:4444`. Beyond loopback the
 * address a client reached says nothing of the public name it used, so the audience must be given.
 */
import type { IncomingMessage } from 'node:http';

/** What an auth hook that derives its audience from requests says of itself (checked at listen). */
export interface DerivesAudience {
  readonly derivesAudience?: boolean;
}

/** `::ffff:127.0.0.1` (an IPv4 peer on a dual-stack socket) is 127.0.0.1; brackets of IPv6 go. */
function plainAddress(address: string): string {
  const unbracketed = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  return unbracketed.toLowerCase().replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
}

export function isLoopback(address: string): boolean {
  const plain = plainAddress(address);
  return plain === 'localhost' || plain === '::1' || /^127\.\d+\.\d+\.\d+$/.test(plain);
}

const SET_AUDIENCE = "set oauthResourceServer's audience option to this server's canonical URL";

/**
 * Why the request's Host cannot give its audience, or undefined when it can: the Host names the
 * loopback address and port the request arrived at.
 */
export function hostAudienceProblem(request: IncomingMessage, host: string): string | undefined {
  const socket = request.socket as { localAddress?: string; localPort?: number; encrypted?: boolean };
  const { localAddress, localPort } = socket;
  if (localAddress === undefined || localPort === undefined) {
    return `The address this request arrived at is unknown, so its Host cannot be checked; ${SET_AUDIENCE}`;
  }
  if (!isLoopback(localAddress)) {
    return `This request arrived at ${plainAddress(localAddress)}, beyond loopback, where its Host is the client's to choose; ${SET_AUDIENCE}`;
  }
  let url: URL;
  try {
    url = new URL(`http://${host}`);
  } catch {
    return `The Host header ${JSON.stringify(host)} is not a host and port; ${SET_AUDIENCE}`;
  }
  const port = url.port === '' ? (socket.encrypted ? 443 : 80) : Number(url.port);
  if (port !== localPort) {
    return `The Host header names port ${port}, but this request arrived on port ${localPort}: a token for another local resource is not one for this server; ${SET_AUDIENCE} if a proxy forwards to it`;
  }
  const hostname = plainAddress(url.hostname);
  if (hostname !== plainAddress(localAddress) && hostname !== 'localhost') {
    return `The Host header names ${hostname}, but this request arrived at ${plainAddress(localAddress)}; ${SET_AUDIENCE} if a proxy forwards to it`;
  }
  return undefined;
}

/**
 * At listen: an auth hook that derives its audience from Host may only serve loopback addresses.
 * Throws, before anything is bound, with what to set.
 */
export function checkListenAudience(auth: unknown, host: string, transport: string): void {
  if (!(auth as DerivesAudience | undefined)?.derivesAudience || isLoopback(host)) return;
  throw new Error(
    `weft: the ${transport} transport listens on ${host}, beyond loopback, and its oauthResourceServer has no audience: ` +
      `there a client chooses the Host header the audience would be derived from. Set audience to the URL clients use, ` +
      `e.g. oauthResourceServer({ issuer, audience: 'https://mcp.example.com/mcp' })`,
  );
}
