/**
 * CORS for browser clients of the Streamable HTTP endpoint: which web origins may call it, the
 * answer to their preflights, and the headers a page may send and read.
 *
 * Off by default. A page on another origin then cannot read any answer, and the DNS-rebinding guard
 * (origin-guard.ts) refuses foreign origins outright. Listing an origin here lets that page through
 * the guard too: allowing a browser origin to call the server is one decision, so it is one option.
 *
 * `Mcp-Param-*` headers have tool-chosen names, so a preflight's requested headers are reflected when
 * each is one MCP uses (a fixed set, or any `Mcp-Param-` name), rather than listed ahead of time.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface CorsOptions {
  /** The web origins whose pages may call the endpoint, exactly as browsers send them: `https://app.example`, `http://localhost:5173`. */
  origins: readonly string[];
  /** Send `Access-Control-Allow-Credentials: true`, for pages that send cookies (default false; bearer tokens need no credentials mode). */
  credentials?: boolean;
  /** How long a browser may reuse a preflight's answer, in seconds (default 600). */
  maxAgeSeconds?: number;
}

const CORS_KEYS = new Set(['origins', 'credentials', 'maxAgeSeconds']);

/** Request headers a page may send (lower case); plus any `mcp-param-*`. */
const ALLOWED_REQUEST_HEADERS = new Set([
  'accept',
  'authorization',
  'content-type',
  'last-event-id',
  'mcp-method',
  'mcp-name',
  'mcp-protocol-version',
  'mcp-session-id',
]);

/** Response headers a page may read besides the CORS-safelisted ones. */
const EXPOSED_HEADERS = [
  'Mcp-Session-Id',
  'MCP-Protocol-Version',
  'Mcp-Method',
  'Mcp-Name',
  'WWW-Authenticate',
  'Retry-After',
].join(', ');

const ALLOWED_METHODS = 'GET, POST, DELETE';

/** Refuses a malformed `cors` option when the transport is built, saying what to write instead. */
export function checkCorsOptions(cors: unknown): void {
  if (cors === undefined) return;
  const hint = "cors must be { origins: ['https://app.example', ...] }";
  if (typeof cors !== 'object' || cors === null || Array.isArray(cors)) throw new TypeError(hint);
  for (const key of Object.keys(cors)) {
    if (!CORS_KEYS.has(key)) {
      throw new TypeError(`cors: unknown option "${key}". Known: ${[...CORS_KEYS].join(', ')}`);
    }
  }
  const { origins, credentials, maxAgeSeconds } = cors as Partial<CorsOptions>;
  if (!Array.isArray(origins)) throw new TypeError(hint);
  for (const origin of origins) {
    if (origin === '*') {
      throw new TypeError(
        "cors.origins: '*' is not accepted; list each origin whose pages may call this server, e.g. 'https://app.example'",
      );
    }
    if (typeof origin !== 'string' || !URL.canParse(origin) || new URL(origin).origin !== origin) {
      throw new TypeError(
        `cors.origins: ${JSON.stringify(origin)} is not an origin; write scheme://host[:port] with no path or trailing slash, e.g. 'https://app.example'`,
      );
    }
  }
  if (credentials !== undefined && typeof credentials !== 'boolean') {
    throw new TypeError('cors.credentials must be true or false');
  }
  if (maxAgeSeconds !== undefined && !(Number.isInteger(maxAgeSeconds) && maxAgeSeconds >= 0)) {
    throw new TypeError(`cors.maxAgeSeconds must be a whole number of seconds, got ${maxAgeSeconds}`);
  }
}

export class CorsPolicy {
  readonly #origins: ReadonlySet<string>;
  readonly #credentials: boolean;
  readonly #maxAgeSeconds: number;

  constructor(options: CorsOptions | undefined) {
    checkCorsOptions(options);
    this.#origins = new Set(options?.origins ?? []);
    this.#credentials = options?.credentials ?? false;
    this.#maxAgeSeconds = options?.maxAgeSeconds ?? 600;
  }

  /** Whether pages of this origin may call the endpoint (the origin guard lets them through). */
  allows(origin: string | undefined): boolean {
    return origin !== undefined && this.#origins.has(origin);
  }

  /**
   * Sets the headers that let an allowed page read this response. Called before anything is
   * written: `writeHead` later merges them into whatever status the request ends with.
   */
  decorate(request: IncomingMessage, response: ServerResponse): void {
    const origin = request.headers.origin;
    // Every answer may differ by Origin, so caches must key on it.
    response.setHeader('vary', 'Origin');
    if (!this.allows(origin)) return;
    response.setHeader('access-control-allow-origin', origin!);
    response.setHeader('access-control-expose-headers', EXPOSED_HEADERS);
    if (this.#credentials) response.setHeader('access-control-allow-credentials', 'true');
  }

  /** Whether this is a CORS preflight (an OPTIONS that names the method it asks about). */
  static isPreflight(request: IncomingMessage): boolean {
    return request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
  }

  /**
   * Answers a preflight: 204 with what may be sent when the origin, method and headers are all
   * allowed; otherwise 403 without CORS headers (the browser then refuses the real request) and a
   * text body that says what was refused, for whoever reads the network log.
   */
  answerPreflight(request: IncomingMessage, response: ServerResponse): void {
    const origin = request.headers.origin;
    const method = String(request.headers['access-control-request-method']).toUpperCase();
    const requested = String(request.headers['access-control-request-headers'] ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name !== '');
    const refuse = (why: string): void => {
      // Whatever decorate() set goes: a refused preflight carries no CORS header at all.
      for (const name of response.getHeaderNames()) {
        if (name.startsWith('access-control-')) response.removeHeader(name);
      }
      response.writeHead(403, { 'content-type': 'text/plain; charset=utf-8', vary: 'Origin' }).end(why);
    };
    if (!this.allows(origin)) {
      refuse(
        `Origin ${JSON.stringify(origin ?? '')} may not call this MCP endpoint; list it in the cors.origins option`,
      );
      return;
    }
    if (!ALLOWED_METHODS.split(', ').includes(method)) {
      refuse(`Method ${method} is not served here; MCP over HTTP uses ${ALLOWED_METHODS}`);
      return;
    }
    const unknown = requested.filter((name) => !ALLOWED_REQUEST_HEADERS.has(name) && !isParamHeader(name));
    if (unknown.length > 0) {
      refuse(`Request headers not accepted: ${unknown.join(', ')}`);
      return;
    }
    const headers: Record<string, string> = {
      'access-control-allow-origin': origin!,
      'access-control-allow-methods': ALLOWED_METHODS,
      'access-control-max-age': String(this.#maxAgeSeconds),
      vary: 'Origin',
    };
    if (requested.length > 0) headers['access-control-allow-headers'] = requested.join(', ');
    if (this.#credentials) headers['access-control-allow-credentials'] = 'true';
    response.writeHead(204, headers).end();
  }
}

function isParamHeader(name: string): boolean {
  return name.startsWith('mcp-param-') && name.length > 'mcp-param-'.length;
}
