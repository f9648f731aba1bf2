/**
 * The `auth` hook of the HTTP and WebSocket transports, and a ready-made bearer-token check.
 *
 * A hook sees the raw request and answers: `true` (go on, caller unknown), a grant naming the caller's
 * principal (go on, and that principal travels with every message of the request or session), or a
 * refusal with its HTTP status. It is replaceable on purpose: `oauthResourceServer` is the OAuth 2.1
 * resource-server check, a custom hook may vouch for a principal of its own choosing, and a local
 * server usually needs none (the origin guard and a loopback bind protect it).
 */
import type { IncomingMessage } from 'node:http';
import type { Principal } from '../auth/principal.js';

export interface AuthRefusal {
  /**
   * 401 or 403; 503 when the caller may retry (the token could not be checked now: say when in a
   * `retry-after` header); 500 when the hook itself failed (what `callAuthHook` answers for a throw).
   */
  status: 401 | 403 | 500 | 503;
  message: string;
  headers?: Record<string, string>;
}

/** Accepted, and this is who is calling. */
export interface AuthGrant {
  principal: Principal;
}

export type AuthVerdict = true | AuthGrant | AuthRefusal;

export interface AuthHook {
  (request: IncomingMessage): AuthVerdict | Promise<AuthVerdict>;
  /**
   * The refusal for a caller whose principal lacks `scopes` (HTTP 403, `insufficient_scope`), so a
   * client can step up. Hooks without it get a plain challenge naming the scopes.
   */
  insufficientScope?(scopes: readonly string[], request: IncomingMessage): AuthRefusal;
  /**
   * The RFC 9728 Protected Resource Metadata of the endpoint at `endpointPath`, as this request
   * reached it. A hook that has it makes the HTTP transport serve it at
   * `/.well-known/oauth-protected-resource<endpointPath>` and at the root form.
   */
  resourceMetadata?(request: IncomingMessage, endpointPath: string): object | undefined;
  /**
   * The sizes of the tables the hook keeps for callers (tokens remembered, refused, being checked),
   * read by `server.stats` so that every per-caller table is visible in one place. Optional: a
   * hook that keeps nothing has none.
   */
  readonly tableSizes?: () => AuthTableSizes;
  /**
   * When the rights the hook granted `principal` must be asked for again (epoch ms): a connection
   * that outlives one request (a WebSocket, a GET stream, a listen stream) calls the hook again on
   * its opening request then, and ends when it is refused (rights-watch.ts). Without it (or when it
   * answers undefined), a connection is asked again only at `principal.expiresAt`, where it ends.
   */
  recheckAt?(principal: Principal): number | undefined;
}

/** What an auth hook holds for callers now (each bounded: docs/security.md). */
export interface AuthTableSizes {
  /** Tokens accepted and remembered, so they are not verified again until their window ends. */
  verifiedTokens: number;
  /** Tokens refused and remembered for a short while (the negative cache), by digest. */
  refusedTokens: number;
  /** Verifications under way (one per distinct token) and waiting for a slot. */
  verifying: number;
  verifyQueued: number;
}

/**
 * Calls `hook` so that nothing it does can escape: a synchronous throw, a rejection, or a value that
 * is not a verdict becomes a refusal (500, "Authentication failed"), the detail logged. A throw that
 * escaped ws's upgrade handler used to be an uncaught exception, so any caller could stop the server.
 */
export function callAuthHook(
  hook: AuthHook,
  request: IncomingMessage,
  logError: (message: string) => void,
): AuthVerdict | Promise<AuthVerdict> {
  let answer: unknown;
  try {
    answer = hook(request);
  } catch (error) {
    return hookThrew(error, logError);
  }
  // A hook that answers at once (a cached token) is answered in the same turn: no promise.
  if (answer instanceof Promise) {
    return answer.then(
      (verdict) => checkedVerdict(verdict, logError),
      (error) => hookThrew(error, logError),
    );
  }
  return checkedVerdict(answer, logError);
}

function hookThrew(error: unknown, logError: (message: string) => void): AuthRefusal {
  logError(
    `weft: the auth hook threw (${error instanceof Error ? error.message : String(error)}); refused with 500`,
  );
  return HOOK_FAILED;
}

function checkedVerdict(verdict: unknown, logError: (message: string) => void): AuthVerdict {
  if (isVerdict(verdict)) return verdict;
  logError(
    `weft: the auth hook answered ${typeof verdict}, not true, { principal } or { status, message }; refused with 500`,
  );
  return HOOK_FAILED;
}

const HOOK_FAILED: AuthRefusal = { status: 500, message: 'Authentication failed' };

function isVerdict(value: unknown): value is AuthVerdict {
  if (value === true) return true;
  if (typeof value !== 'object' || value === null) return false;
  if ('principal' in value) return true;
  const { status, message } = value as { status?: unknown; message?: unknown };
  return typeof status === 'number' && typeof message === 'string';
}

/** Whether a verdict let the request in. */
export function isAccepted(verdict: AuthVerdict): verdict is true | AuthGrant {
  return verdict === true || 'principal' in verdict;
}

export interface BearerAuthOptions {
  /** Sent in `WWW-Authenticate` so clients know where to get a token (RFC 9728). */
  resourceMetadataUrl?: string;
  realm?: string;
}

/** Accepts requests whose `Authorization: Bearer <token>` passes `verify`; refuses others with 401. */
export function bearerAuth(
  verify: (token: string) => boolean | Promise<boolean>,
  options: BearerAuthOptions = {},
): AuthHook {
  const challenge = [
    `Bearer realm="${options.realm ?? 'mcp'}"`,
    ...(options.resourceMetadataUrl ? [`resource_metadata="${options.resourceMetadataUrl}"`] : []),
  ].join(', ');
  return async (request) => {
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) {
      return { status: 401, message: 'Missing bearer token', headers: { 'www-authenticate': challenge } };
    }
    if (!(await verify(match[1]!))) {
      return {
        status: 401,
        message: 'Invalid or expired bearer token',
        headers: { 'www-authenticate': `${challenge}, error="invalid_token"` },
      };
    }
    return true;
  };
}
