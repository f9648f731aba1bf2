/**
 * Where a request comes from, as introspection shares its capacity: before a token is verified
 * there is no principal, so the source is the client's address as the transport's door read it
 * (a trusted proxy's forwarded address included, caller-identity.ts), normalised so one host is
 * one source: an IPv4 address as is, an IPv4-mapped IPv6 address as its IPv4 one, an IPv6 address
 * by its /64 (one host usually holds a whole /64, so its addresses are one source, not 2^64).
 */
import type { IncomingMessage } from 'node:http';
import { clientAddressAtDoor, normaliseAddress } from '../transports/caller-identity.js';

export function introspectionSource(request: IncomingMessage): string {
  return addressSource(clientAddressAtDoor(request));
}

/** The source of a raw peer address (undefined: a socket already gone, one shared source). */
export function addressSource(address: string | undefined): string {
  if (address === undefined || address === '') return 'unknown';
  return normaliseAddress(address);
}
