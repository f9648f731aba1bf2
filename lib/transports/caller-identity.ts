/**
 * Who a caller is, for every bound, share and limit: worked out once at a transport's door and
 * carried from there as data (on the session, on each request's scope), so the fair queue, the
 * session table, listen streams, sockets, tasks and rate limits all count the same caller.
 *
 * - The principal, when an auth hook vouched for one (principalKey: issuer + subject, a client
 *   without `sub` kept apart from a user of the same name).
 * - Else the peer's address, normalised so that one host is one caller: an IPv4 address as is
 *   (127.0.0.1 and 127.0.0.2 are two), an IPv4-mapped IPv6 address as its IPv4 one, an IPv6
 *   address as its /64 (one host commonly holds a whole /64, so a finer key is free to multiply).
 * - The address is the client's, not the proxy's, only when the socket's peer is one of the
 *   configured `trustProxy` addresses: then the rightmost untrusted hop of `X-Forwarded-For`, or
 *   without one of `Forwarded` (RFC 7239), names the client. From anyone else those headers are ignored, since a
 *   client may write whatever it likes in them.
 */
import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';
import { type Principal, principalKey } from '../auth/principal.js';

export interface CallerIdentityOptions {
  /**
   * Proxies whose `Forwarded` / `X-Forwarded-For` name the client (addresses or CIDR blocks, such
   * as `['127.0.0.1']` or `['10.0.0.0/8']`). Default none: the socket's peer is the caller.
   */
  trustProxy?: readonly string[];
}

/** The caller key of a principal. */
export function principalCaller(principal: Principal): string {
  return `principal ${principalKey(principal)}`;
}

/** The caller key of a peer address (see the module comment for how it is normalised). */
export function addressCaller(address: string): string {
  return `address ${normaliseAddress(address)}`;
}

/**
 * One host's address: IPv4 as is, IPv4-mapped IPv6 as IPv4, IPv6 as its /64 (zone and brackets
 * dropped); anything else, lower-cased, as it came.
 */
export function normaliseAddress(address: string): string {
  const plain = normalisedHost(address);
  if (isIP(plain) !== 6) return plain;
  return `${expandIpv6(plain).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, each without leading zeros. */
function expandIpv6(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  let left = groups(head);
  let right = tail === undefined ? [] : groups(tail);
  // An embedded IPv4 tail (::1.2.3.4) is two groups.
  const last = (tail === undefined ? left : right).at(-1);
  if (last?.includes('.')) {
    const [a, b, c, d] = last.split('.').map(Number) as [number, number, number, number];
    const pair = [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
    if (tail === undefined) left = [...left.slice(0, -1), ...pair];
    else right = [...right.slice(0, -1), ...pair];
  }
  const missing = 8 - left.length - right.length;
  return [...left, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...right].map((group) =>
    Number.parseInt(group, 16).toString(16),
  );
}

/**
 * The client address each request's door worked out (`CallerIdentity.arrive`), for what must know
 * the source before any principal exists: introspection shares its capacity by it.
 */
const doorAddresses = new WeakMap<IncomingMessage, string>();

/** The client's address as the door read it (a trusted proxy's word included), else the socket's peer. */
export function clientAddressAtDoor(request: IncomingMessage): string | undefined {
  return doorAddresses.get(request) ?? request.socket?.remoteAddress;
}

/** Reads who a request comes from, trusting forwarding headers from the configured proxies only. */
export class CallerIdentity {
  readonly #proxies: BlockList | undefined;

  constructor(options: CallerIdentityOptions = {}) {
    this.#proxies = proxyList(options.trustProxy);
  }

  /** The caller key of a request: its principal, else its client's address; undefined if unknown. */
  of(request: IncomingMessage, principal: Principal | undefined): string | undefined {
    if (principal !== undefined) return principalCaller(principal);
    // Read once per request: arrive() already did when an auth hook runs first.
    const address = doorAddresses.get(request) ?? this.clientAddress(request);
    return address === undefined ? undefined : addressCaller(address);
  }

  /** Records the request's client address as it enters, before the auth hook asks where it is from. */
  arrive(request: IncomingMessage): void {
    const address = this.clientAddress(request);
    if (address !== undefined) doorAddresses.set(request, address);
  }

  /** The client's address: the socket's peer, or what a trusted proxy says it forwarded for. */
  clientAddress(request: IncomingMessage): string | undefined {
    const peer = request.socket?.remoteAddress;
    if (peer === undefined || !this.#trusted(peer)) return peer;
    const hops = forwardedHops(request);
    // Walk back from the hop nearest us: the first one that is not a trusted proxy is the client.
    for (let index = hops.length - 1; index >= 0; index--) {
      const hop = hops[index]!;
      if (!this.#trusted(hop)) return hop;
    }
    return hops[0] ?? peer;
  }

  #trusted(address: string): boolean {
    if (this.#proxies === undefined) return false;
    const plain = normalisedHost(address);
    const family = isIP(plain);
    return family !== 0 && this.#proxies.check(plain, family === 4 ? 'ipv4' : 'ipv6');
  }
}

/** Refuses a malformed `trustProxy` when the server is built, saying what to write. */
export function checkTrustProxy(trustProxy: unknown): void {
  proxyList(trustProxy as readonly string[] | undefined);
}

/** The trusted proxies as a BlockList; a malformed entry is refused, saying what to write. */
function proxyList(trustProxy: readonly string[] | undefined): BlockList | undefined {
  if (trustProxy === undefined) return undefined;
  if (!Array.isArray(trustProxy)) {
    throw new TypeError("trustProxy must be a list of proxy addresses, such as ['127.0.0.1', '10.0.0.0/8']");
  }
  const list = new BlockList();
  for (const entry of trustProxy) {
    const [address = '', bits, extra] = String(entry).split('/');
    const plain = normalisedHost(address);
    const family = isIP(plain);
    const prefix = bits === undefined ? undefined : Number(bits);
    const maxBits = family === 4 ? 32 : 128;
    if (
      family === 0 ||
      extra !== undefined ||
      (prefix !== undefined && !(Number.isInteger(prefix) && prefix >= 0 && prefix <= maxBits))
    ) {
      throw new TypeError(
        `trustProxy: "${entry}" is not an IP address or CIDR block; write the proxy's address as it connects to this server, such as '127.0.0.1', '::1' or '10.0.0.0/8'`,
      );
    }
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(plain, type);
    else list.addSubnet(plain, prefix, type);
  }
  return list;
}

/** An address without brackets, zone or IPv4 mapping (but not cut to a /64). */
function normalisedHost(address: string): string {
  let plain = address.trim().toLowerCase();
  if (plain.startsWith('[') && plain.endsWith(']')) plain = plain.slice(1, -1);
  const zone = plain.indexOf('%');
  if (zone !== -1) plain = plain.slice(0, zone);
  return plain.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
}

/**
 * The addresses a request was forwarded for, client first: X-Forwarded-For (what HAProxy's `option
 * forwardfor`, nginx and most balancers append), else `Forwarded`'s `for=`. Never both: a proxy that
 * appends one passes the other on as the client wrote it.
 */
function forwardedHops(request: IncomingMessage): string[] {
  const forwardedFor = headerText(request.headers['x-forwarded-for']);
  if (forwardedFor !== undefined) {
    return forwardedFor
      .split(',')
      .map((hop) => hop.trim())
      .filter((hop) => isIP(normalisedHost(hop)) !== 0);
  }
  const forwarded = headerText(request.headers.forwarded);
  if (forwarded !== undefined) {
    const hops: string[] = [];
    for (const element of forwarded.split(',')) {
      for (const pair of element.split(';')) {
        const [name = '', value = ''] = pair.split(/=(.*)/s, 2);
        if (name.trim().toLowerCase() === 'for') hops.push(forwardedNode(value.trim()));
      }
    }
    return hops.filter((hop) => isIP(normalisedHost(hop)) !== 0);
  }
  return [];
}

/** The address of a `for=` node: quotes, brackets and port dropped (`"[2001:db8::1]:4711"`). */
function forwardedNode(value: string): string {
  const unquoted = value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  if (unquoted.startsWith('[')) return unquoted.slice(1, unquoted.indexOf(']'));
  const colon = unquoted.indexOf(':');
  return colon !== -1 && unquoted.indexOf(':', colon + 1) === -1 ? unquoted.slice(0, colon) : unquoted;
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}
