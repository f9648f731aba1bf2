/**
 * DNS-rebinding protection for HTTP and WebSocket: the `Host` and `Origin` a request carries must
 * name this machine (or a name the user allowed).
 *
 * A web page can make a browser send requests to 127.0.0.1 by pointing its own domain at it; the
 * browser then sends `Host: evil.example` and `Origin: http://evil.example`. Refusing any host or
 * origin that is not local (unless listed) stops the attack. Requests without an Origin are not from
 * a browser page and pass the origin check.
 *
 * HTTP also accepts local origins (a page on localhost:OTHER_PORT): CORS still stops such a page,
 * because an MCP POST needs a preflight that only listed origins pass. A WebSocket has no CORS, so
 * any page on any local port (another dev server, an XSS in a local app) could open one and call
 * tools; its upgrade therefore accepts a browser Origin only when it is listed (`localOrigins: false`).
 */

export interface OriginGuardOptions {
  /** Host names (without port) accepted in `Host`; default: localhost, 127.0.0.1, [::1]. 'any' turns the check off. */
  allowedHosts?: string[] | 'any';
  /** Full origins (`https://app.example`) accepted in `Origin`; default: local origins only. */
  allowedOrigins?: string[] | 'any';
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** Why the request must be refused, or undefined when it may go on. */
export function originProblem(
  headers: { host?: string | undefined; origin?: string | undefined },
  options: OriginGuardOptions,
  localOrigins = true,
): string | undefined {
  if (options.allowedHosts !== 'any') {
    const hostname = hostnameOf(headers.host);
    const allowed = options.allowedHosts ?? [];
    if (hostname === undefined || !(LOCAL_HOSTS.has(hostname) || allowed.includes(hostname))) {
      return `Host ${JSON.stringify(headers.host ?? '')} is not allowed (DNS rebinding protection); list it in allowedHosts to serve it`;
    }
  }
  const origin = headers.origin;
  if (origin === undefined || options.allowedOrigins === 'any') return undefined;
  if (options.allowedOrigins?.includes(origin)) return undefined;
  let originHost: string | undefined;
  try {
    originHost = new URL(origin).hostname.toLowerCase();
  } catch {
    originHost = undefined;
  }
  if (originHost !== undefined && LOCAL_HOSTS.has(originHost)) {
    if (localOrigins) return undefined;
    return `Origin ${JSON.stringify(origin)} is not allowed: a WebSocket has no CORS, so a browser page may open one only from an origin listed in allowedOrigins`;
  }
  return `Origin ${JSON.stringify(origin)} is not allowed (DNS rebinding protection); list it in allowedOrigins to accept it`;
}

function hostnameOf(host: string | undefined): string | undefined {
  if (!host) return undefined;
  const lower = host.toLowerCase();
  if (lower.startsWith('[')) {
    const close = lower.indexOf(']');
    return close < 0 ? undefined : lower.slice(0, close + 1);
  }
  const colon = lower.indexOf(':');
  return colon < 0 ? lower : lower.slice(0, colon);
}
