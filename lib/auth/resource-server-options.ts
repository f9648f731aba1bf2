/**
 * The options of `oauthResourceServer`, and their check at construction: a typo or a dangerous
 * choice (an HMAC algorithm, `none`) is refused with what to write instead, before any request.
 */
import { checkCanonicalUrl } from './canonical-resource.js';
import { ASYMMETRIC_ALGORITHMS } from './jwt-access-token.js';
import { INTROSPECTION_DEFAULTS, type IntrospectionOptions } from './token-introspection.js';

export interface OAuthResourceServerOptions {
  /** The authorization server's issuer URL, exactly as in its tokens' `iss` and its metadata. */
  issuer: string;
  /**
   * This server's canonical URL (scheme, host, port, endpoint path, no trailing slash): the
   * audience tokens must name and the `resource` of its metadata. Default: derived from each
   * request (TLS or not, Host header, endpoint path). Give it behind a balancer or proxy, and on
   * any public interface, where the Host header is the client's to choose.
   */
  audience?: string;
  /** The issuer's key set; default: its metadata's `jwks_uri`. */
  jwksUri?: string;
  /** Accepted JWT signing algorithms (default: the asymmetric ones jose knows). */
  algorithms?: string[];
  /** Check opaque (non-JWT) tokens by RFC 7662 introspection with these credentials. */
  introspection?: IntrospectionOptions;
  /** Scopes published in the resource metadata (`scopes_supported`). */
  scopesSupported?: string[];
  /** Scopes every request needs; a token without one of them gets 403 `insufficient_scope`. */
  requiredScopes?: string[];
  /** A human-readable name published as `resource_name`. */
  resourceName?: string;
  /** Clock skew tolerated on `exp` and `nbf`, in seconds (default 5). */
  clockToleranceSec?: number;
  /** Least time between two fetches of the key set for an unknown `kid` (default 30 000 ms). */
  jwksCooldownMs?: number;
  /** Verified tokens remembered (by digest, until they expire) so the hot path skips the signature (default 10 000). */
  cacheMaxEntries?: number;
}

const KNOWN = new Set([
  'issuer',
  'audience',
  'jwksUri',
  'algorithms',
  'introspection',
  'scopesSupported',
  'requiredScopes',
  'resourceName',
  'clockToleranceSec',
  'jwksCooldownMs',
  'cacheMaxEntries',
]);
const INTROSPECTION_KEYS = new Set([
  'endpoint',
  'clientId',
  'clientSecret',
  'cacheTtlMs',
  'negativeCacheTtlMs',
  'maxConcurrent',
  'maxQueued',
  'staleWindowMs',
  'perSourceBurst',
  'perSourcePerSecond',
]);

const fail = (message: string): never => {
  throw new TypeError(`oauthResourceServer: ${message}`);
};

function checkScopes(value: unknown, what: string): void {
  if (value === undefined) return;
  if (
    !Array.isArray(value) ||
    value.some((scope) => typeof scope !== 'string' || !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope))
  ) {
    fail(`${what} must be an array of scope tokens (no spaces, quotes or backslashes)`);
  }
}

function checkNonNegative(value: unknown, what: string): void {
  if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
    fail(`${what} must be a number >= 0`);
  }
}

/** The revocation window and the introspection caps: numbers, bounded, so a typo cannot unbound them. */
function checkIntrospectionBounds(introspection: IntrospectionOptions): void {
  const { maxCacheTtlMs } = INTROSPECTION_DEFAULTS;
  for (const name of ['cacheTtlMs', 'negativeCacheTtlMs'] as const) {
    const value = introspection[name];
    checkNonNegative(value, `introspection.${name}`);
    if (value !== undefined && value > maxCacheTtlMs) {
      fail(
        `introspection.${name} is at most ${maxCacheTtlMs} ms: a revoked token must stop working within a minute (got ${value})`,
      );
    }
  }
  const { maxStaleWindowMs } = INTROSPECTION_DEFAULTS;
  checkNonNegative(introspection.staleWindowMs, 'introspection.staleWindowMs');
  if (introspection.staleWindowMs !== undefined && introspection.staleWindowMs > maxStaleWindowMs) {
    fail(
      `introspection.staleWindowMs is at most ${maxStaleWindowMs} ms: while the authorization server cannot be asked, a revoked token works that long (got ${introspection.staleWindowMs})`,
    );
  }
  checkNonNegative(introspection.perSourcePerSecond, 'introspection.perSourcePerSecond');
  for (const name of ['maxConcurrent', 'maxQueued', 'perSourceBurst'] as const) {
    const least = name === 'maxQueued' ? 0 : 1;
    const value = introspection[name];
    if (value !== undefined && !(Number.isInteger(value) && value >= least)) {
      fail(`introspection.${name} must be an integer >= ${least}, got ${String(value)}`);
    }
  }
}

export function checkResourceServerOptions(options: OAuthResourceServerOptions): void {
  if (typeof options !== 'object' || options === null) fail('options must be an object with at least issuer');
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) fail(`unknown option "${key}". Known options: ${[...KNOWN].join(', ')}`);
  }
  if (typeof options.issuer !== 'string')
    fail('issuer must be the authorization server issuer URL (a string)');
  try {
    new URL(options.issuer);
  } catch {
    fail(`issuer must be an absolute URL, got ${JSON.stringify(options.issuer)}`);
  }
  if (options.audience !== undefined) checkCanonicalUrl(options.audience, 'oauthResourceServer: audience');
  if (options.jwksUri !== undefined) {
    try {
      new URL(options.jwksUri);
    } catch {
      fail(`jwksUri must be an absolute URL, got ${JSON.stringify(options.jwksUri)}`);
    }
  }
  if (options.algorithms !== undefined) {
    if (!Array.isArray(options.algorithms) || options.algorithms.length === 0) {
      fail('algorithms must be a non-empty array');
    }
    for (const alg of options.algorithms) {
      if (!(ASYMMETRIC_ALGORITHMS as readonly string[]).includes(alg)) {
        fail(
          `algorithm ${JSON.stringify(alg)} is not accepted: only asymmetric ones verify against a published key set (${ASYMMETRIC_ALGORITHMS.join(', ')})`,
        );
      }
    }
  }
  const introspection = options.introspection;
  if (introspection !== undefined) {
    if (typeof introspection !== 'object' || introspection === null) fail('introspection must be an object');
    for (const key of Object.keys(introspection)) {
      if (!INTROSPECTION_KEYS.has(key)) {
        fail(`unknown introspection option "${key}". Known: ${[...INTROSPECTION_KEYS].join(', ')}`);
      }
    }
    if (typeof introspection.clientId !== 'string' || typeof introspection.clientSecret !== 'string') {
      fail(
        "introspection needs clientId and clientSecret: weft's own credentials at the authorization server",
      );
    }
    checkIntrospectionBounds(introspection);
  }
  checkScopes(options.scopesSupported, 'scopesSupported');
  checkScopes(options.requiredScopes, 'requiredScopes');
  if (options.scopesSupported && options.requiredScopes) {
    const unknown = options.requiredScopes.filter((scope) => !options.scopesSupported!.includes(scope));
    if (unknown.length > 0) fail(`requiredScopes ${unknown.join(', ')} are not in scopesSupported`);
  }
  if (options.resourceName !== undefined && typeof options.resourceName !== 'string') {
    fail('resourceName must be a string');
  }
  checkNonNegative(options.clockToleranceSec, 'clockToleranceSec');
  checkNonNegative(options.jwksCooldownMs, 'jwksCooldownMs');
  checkNonNegative(options.cacheMaxEntries, 'cacheMaxEntries');
}
