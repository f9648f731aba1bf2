/**
 * `oauthResourceServer`: the MCP server as an OAuth 2.1 resource server, as an `auth` hook.
 *
 * Per request, in this order: the canonical URL (given, or from the request), a token in the query
 * string refused, the `Authorization: Bearer` header read, the verified tokens consulted (by the
 * token's digest, for this audience: verified-tokens.ts), else the token verified (a JWT against the
 * issuer's keys, an opaque token by introspection, in the lane of tokens seen valid before when it
 * was, and under the request's source: introspection-source.ts), the required scopes checked. A
 * token verified before whose check cannot be made now is accepted on its earlier verdict within
 * its stale window. The answer is the caller's
 * principal, or a 401/403 whose `WWW-Authenticate` challenge tells the client where the metadata
 * is and what to ask for. The raw token is never logged, never put in a message, never on the
 * principal (see access-token-of.ts for the one opt-in way back to it).
 *
 * The hook also describes the resource (RFC 9728 metadata, served by the HTTP transport) and builds
 * the step-up refusal for a scope an operation needs (`insufficientScope`).
 */
import type { IncomingMessage } from 'node:http';
import type { AuthHook, AuthRefusal, AuthTableSizes, AuthVerdict } from '../transports/bearer-auth.js';
import { rememberAccessToken } from './access-token-of.js';
import { bearerChallenge } from './bearer-challenge.js';
import { tokenDigest } from './bounded-expiry-cache.js';
import { canonicalUrlOf, requestPath, resourceMetadataUrlOf } from './canonical-resource.js';
import { hostAudienceProblem } from './host-audience.js';
import { introspectionSource } from './introspection-source.js';
import { IssuerMetadataSource } from './issuer-metadata.js';
import {
  ASYMMETRIC_ALGORITHMS,
  JwtAccessTokenVerifier,
  looksLikeJwt,
  type TokenCheck,
} from './jwt-access-token.js';
import type { Principal } from './principal.js';
import { type ProtectedResourceMetadata, protectedResourceMetadata } from './protected-resource-metadata.js';
import { checkResourceServerOptions, type OAuthResourceServerOptions } from './resource-server-options.js';
import {
  INTROSPECTION_DEFAULTS,
  type IntrospectionAsker,
  type IntrospectionCheck,
  TokenIntrospection,
} from './token-introspection.js';
import { principalFromClaims } from './token-principal.js';
import { type VerifiedToken, VerifiedTokens } from './verified-tokens.js';

export interface OAuthResourceServer extends AuthHook {
  /** Synchronous for a token already verified (the hot path); a promise while one is verified. */
  (request: IncomingMessage): AuthVerdict | Promise<AuthVerdict>;
  insufficientScope(scopes: readonly string[], request: IncomingMessage): AuthRefusal;
  resourceMetadata(request: IncomingMessage, endpointPath: string): ProtectedResourceMetadata | undefined;
  /** The scopes this resource publishes, when given (registrations may be checked against them). */
  readonly scopesSupported: readonly string[] | undefined;
  /** No audience was given: it comes from each request's Host, so only loopback may be served. */
  readonly derivesAudience: boolean;
  /** The sizes of its tables: tokens remembered, and introspection's (when configured). */
  readonly stats: OAuthResourceServerStats;
  /** The same sizes in the shape `server.stats.tables.auth` sums over a server's hooks. */
  readonly tableSizes: () => AuthTableSizes;
  /** When a connection holding `principal` asks for its rights again (see AuthHook.recheckAt). */
  recheckAt(principal: Principal): number | undefined;
}

export interface OAuthResourceServerStats {
  verifiedTokens: number;
  introspection?: TokenIntrospection['stats'];
}

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

export function oauthResourceServer(options: OAuthResourceServerOptions): OAuthResourceServer {
  checkResourceServerOptions(options);
  const { issuer, audience: fixedAudience } = options;
  const requiredScopes = Object.freeze([...(options.requiredScopes ?? [])]);
  // The first 401 names what every request needs, never all of scopesSupported: clients ask for the
  // challenge's scopes first, so naming more makes a least-privileged client ask for scopes it may
  // not hold, and be refused. A primitive's own scopes are asked for by the 403 step-up.
  const challengeScopes = requiredScopes.length > 0 ? requiredScopes : undefined;
  const clockToleranceSec = options.clockToleranceSec ?? 5;
  const metadata = new IssuerMetadataSource(issuer);
  const fromMetadata = (member: 'jwks_uri' | 'introspection_endpoint') => async () => {
    const uri = (await metadata.get())[member];
    if (typeof uri !== 'string') {
      throw new Error(
        `oauthResourceServer: the metadata of ${issuer} names no ${member}; give it explicitly`,
      );
    }
    return uri;
  };
  const jwt = new JwtAccessTokenVerifier({
    issuer,
    jwksUri: options.jwksUri ? async () => options.jwksUri! : fromMetadata('jwks_uri'),
    algorithms: options.algorithms ?? ASYMMETRIC_ALGORITHMS,
    clockToleranceSec,
    jwksCooldownMs: options.jwksCooldownMs ?? 30_000,
  });
  const introspection = options.introspection
    ? new TokenIntrospection({
        endpoint: options.introspection.endpoint
          ? async () => options.introspection!.endpoint!
          : fromMetadata('introspection_endpoint'),
        clientId: options.introspection.clientId,
        clientSecret: options.introspection.clientSecret,
        cacheTtlMs: options.introspection.cacheTtlMs,
        negativeCacheTtlMs: options.introspection.negativeCacheTtlMs,
        maxConcurrent: options.introspection.maxConcurrent,
        maxQueued: options.introspection.maxQueued,
        perSourceBurst: options.introspection.perSourceBurst,
        perSourcePerSecond: options.introspection.perSourcePerSecond,
        issuer,
        clockToleranceSec,
      })
    : undefined;
  const staleWindowMs = options.introspection?.staleWindowMs ?? INTROSPECTION_DEFAULTS.staleWindowMs;
  const verified = new VerifiedTokens(options.cacheMaxEntries ?? 10_000);

  // The request's path is read only when the audience comes from the request: a fixed audience
  // (the usual deployment) costs nothing per request.
  const resourceOf = (request: IncomingMessage, endpointPath = requestPath(request)) =>
    fixedAudience ??
    (hostAudienceProblem(request, request.headers.host ?? '') === undefined
      ? canonicalUrlOf(request, endpointPath)
      : undefined);

  const unauthorized = (
    resource: string,
    message: string,
    error?: 'invalid_request' | 'invalid_token',
  ): AuthRefusal => ({
    status: 401,
    message,
    headers: {
      'www-authenticate': bearerChallenge({
        resourceMetadata: resourceMetadataUrlOf(resource),
        scopes: challengeScopes,
        error,
        description: error ? message : undefined,
      }),
    },
  });

  const insufficient = (resource: string, scopes: readonly string[]): AuthRefusal => {
    const message = `This operation needs the scope${scopes.length === 1 ? '' : 's'} ${scopes.join(' ')}; ask the authorization server for a token that grants ${scopes.length === 1 ? 'it' : 'them'}`;
    return {
      status: 403,
      message,
      headers: {
        'www-authenticate': bearerChallenge({
          resourceMetadata: resourceMetadataUrlOf(resource),
          scopes,
          error: 'insufficient_scope',
          description: message,
        }),
      },
    };
  };

  const check = async (
    token: string,
    key: string,
    resource: string,
    asker: IntrospectionAsker,
  ): Promise<TokenCheck | IntrospectionCheck> => {
    if (looksLikeJwt(token)) return jwt.verify(token, resource);
    if (introspection) return introspection.check(token, resource, key, asker);
    return { invalid: 'the token is not a JWT and this server has no introspection configured' };
  };

  /**
   * Verifies a token not fresh in the cache, then remembers it: a JWT until its `exp`, an
   * introspected token at most introspection.cacheTtlMs (so a revocation is seen within that
   * window), and then stale for staleWindowMs. A `stale` entry is used when the check cannot be made.
   */
  const verifyAndRemember = async (
    token: string,
    key: string,
    resource: string,
    source: string,
    stale: VerifiedToken | undefined,
  ): Promise<AuthVerdict> => {
    const verdict = await check(token, key, resource, { source, known: stale !== undefined });
    if ('unavailable' in verdict) {
      const now = Date.now();
      if (stale !== undefined && now < stale.staleUntil) return scopedVerdict(stale.principal, resource);
      return {
        status: 503,
        message: `${verdict.unavailable}; retry later`,
        headers: { 'retry-after': String(Math.ceil(verdict.retryAfterMs / 1000)) },
      };
    }
    if ('invalid' in verdict) {
      if (stale !== undefined) verified.forget(key);
      return unauthorized(resource, `Invalid access token: ${verdict.invalid}`, 'invalid_token');
    }
    const principal = principalFromClaims(verdict.claims);
    if (principal === undefined) {
      return unauthorized(resource, 'Invalid access token: it names no subject or client', 'invalid_token');
    }
    rememberAccessToken(principal, token);
    // Verified tokens carry exp (required above): a JWT is remembered exactly until then.
    const expiresAt = principal.expiresAt ?? 0;
    const freshUntil = looksLikeJwt(token) ? expiresAt : (introspection?.rememberUntil(expiresAt) ?? 0);
    const staleUntil = looksLikeJwt(token) ? freshUntil : Math.min(expiresAt, freshUntil + staleWindowMs);
    verified.remember(key, { principal, audience: resource, freshUntil, staleUntil });
    return scopedVerdict(principal, resource);
  };

  const scopedVerdict = (principal: Principal, resource: string): AuthVerdict => {
    const missing = requiredScopes.filter((scope) => !principal.scopes.includes(scope));
    if (missing.length > 0) return insufficient(resource, requiredScopes);
    return { principal };
  };

  // Not async: a token already verified is answered in the same turn (the hot path), and only a
  // verification returns a promise.
  const hook = (request: IncomingMessage): AuthVerdict | Promise<AuthVerdict> => {
    const resource = resourceOf(request);
    if (resource === undefined) {
      const host = request.headers.host;
      return {
        status: 401,
        message: host
          ? (hostAudienceProblem(request, host) ??
            'The request names no usable Host, so its canonical URL is unknown; set the audience option')
          : 'The request names no usable Host, so its canonical URL is unknown; set the audience option',
      };
    }
    const query = (request.url ?? '').indexOf('?');
    if (query !== -1 && new URLSearchParams(request.url!.slice(query + 1)).has('access_token')) {
      return unauthorized(
        resource,
        'An access token in the query string is refused; send it in the Authorization header',
        'invalid_request',
      );
    }
    const header = request.headers.authorization;
    if (header === undefined) return unauthorized(resource, 'This server needs an OAuth bearer token');
    const match = BEARER.exec(header);
    if (!match) {
      return unauthorized(
        resource,
        'The Authorization header must be "Bearer <access token>"',
        'invalid_request',
      );
    }
    const token = match[1]!;
    const key = tokenDigest(token);
    const now = Date.now();
    const cached = verified.get(key, resource, now);
    if (cached !== undefined && cached.freshUntil > now) return scopedVerdict(cached.principal, resource);
    return verifyAndRemember(token, key, resource, introspectionSource(request), cached);
  };

  // A getter (Object.assign would copy one value): the sizes as they are when read.
  Object.defineProperty(hook, 'stats', {
    get: (): OAuthResourceServerStats =>
      introspection
        ? { verifiedTokens: verified.size, introspection: introspection.stats }
        : { verifiedTokens: verified.size },
  });
  return Object.assign(hook as typeof hook & { readonly stats: OAuthResourceServerStats }, {
    tableSizes: (): AuthTableSizes => {
      const held = introspection?.stats;
      return {
        verifiedTokens: verified.size,
        refusedTokens: held?.refusedTokens ?? 0,
        verifying: held?.inFlight ?? 0,
        verifyQueued: held?.queued ?? 0,
      };
    },
    insufficientScope(scopes: readonly string[], request: IncomingMessage): AuthRefusal {
      const resource = resourceOf(request);
      if (resource === undefined)
        return { status: 403, message: `This operation needs scopes ${scopes.join(' ')}` };
      return insufficient(resource, scopes);
    },
    resourceMetadata(request: IncomingMessage, endpointPath: string) {
      const resource = resourceOf(request, endpointPath);
      if (resource === undefined) return undefined;
      return protectedResourceMetadata({
        resource,
        issuer,
        scopesSupported: options.scopesSupported,
        resourceName: options.resourceName,
      });
    },
    recheckAt: (principal: Principal) => verified.recheckAt(principal),
    scopesSupported: options.scopesSupported ? Object.freeze([...options.scopesSupported]) : undefined,
    derivesAudience: fixedAudience === undefined,
  });
}
