/**
 * The server's canonical URL (RFC 8707 / the MCP authorization spec): scheme, host, port and the
 * endpoint's path, no trailing slash, no query. It is the audience a token must name and the
 * `resource` of the protected-resource metadata, so both must come from one place.
 *
 * Given explicitly it is fixed (the only safe choice behind a balancer or on a public interface: a
 * Host header is whatever the client wrote). Otherwise it is read from the request: TLS socket or
 * not, the Host header, the endpoint's path.
 */
import type { IncomingMessage } from 'node:http';

export const RESOURCE_METADATA_PREFIX = '/.well-known/oauth-protected-resource';

/** An explicit canonical URL, checked once: absolute http(s), no query or fragment, no trailing slash. */
export function checkCanonicalUrl(value: string, what: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(
      `${what} must be an absolute URL like https://mcp.example.com/mcp, got ${JSON.stringify(value)}`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TypeError(`${what} must be an http(s) URL, got ${JSON.stringify(value)}`);
  }
  if (url.search !== '' || url.hash !== '') {
    throw new TypeError(`${what} must not carry a query or fragment, got ${JSON.stringify(value)}`);
  }
  if (url.pathname.length > 1 && url.pathname.endsWith('/')) {
    throw new TypeError(`${what} must not end with a slash (canonical form), got ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * The canonical URL of the endpoint at `endpointPath` as this request reached it, or undefined
 * when the request names no usable host.
 */
export function canonicalUrlOf(request: IncomingMessage, endpointPath: string): string | undefined {
  const host = request.headers.host;
  if (!host) return undefined;
  const scheme = (request.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  let url: URL;
  try {
    url = new URL(`${scheme}://${host}`);
  } catch {
    return undefined;
  }
  if (url.pathname !== '/' || url.username !== '' || url.search !== '') return undefined;
  const path =
    endpointPath.length > 1 && endpointPath.endsWith('/') ? endpointPath.slice(0, -1) : endpointPath;
  // URL drops default ports (80, 443) and lowercases the host: the canonical spelling.
  return path === '/' ? url.origin : `${url.origin}${path}`;
}

/** The path of the request, as the MCP endpoint saw it (Express keeps the mount in `originalUrl`). */
export function requestPath(request: IncomingMessage): string {
  const raw = (request as IncomingMessage & { originalUrl?: string }).originalUrl ?? request.url ?? '/';
  return new URL(raw, 'http://localhost').pathname;
}

/** Where RFC 9728 clients fetch the metadata of `resource`: the path-suffixed well-known URL. */
export function resourceMetadataUrlOf(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname;
  return `${url.origin}${RESOURCE_METADATA_PREFIX}${path}`;
}
