/**
 * Where a request comes from, as introspection shares its capacity: before a token is verified
 * there is no principal, so the source is the peer's address. An IPv4 address is one source; an
 * IPv6 address counts by its /64 (one host usually holds a whole /64, so its addresses are one
 * source, not 2^64); an IPv4-mapped IPv6 address is its IPv4 address.
 *
 * This is the one place introspection asks "who is this": when the transport knows a caller's
 * address better (from a trusted proxy), this function is where it is read.
 */
import type { IncomingMessage } from 'node:http';

export function introspectionSource(request: IncomingMessage): string {
  return addressSource(request.socket?.remoteAddress);
}

/** The source of a raw peer address (undefined: a socket already gone, one shared source). */
export function addressSource(address: string | undefined): string {
  if (address === undefined || address === '') return 'unknown';
  if (!address.includes(':')) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address (a zone index dropped, `::` expanded), as hex. */
function ipv6Groups(address: string): string[] {
  const bare = address.split('%')[0]!.toLowerCase();
  const [head = '', tail] = bare.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = Math.max(0, 8 - left.length - right.length);
  return [...left, ...Array<string>(missing).fill('0'), ...right].map((group) =>
    (Number.parseInt(group, 16) || 0).toString(16),
  );
}
