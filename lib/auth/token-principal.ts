/**
 * From a token's verified claims (a JWT payload or an introspection answer) to the caller's
 * principal. Both carry the same RFC 9068 / RFC 7662 members, so one reading serves both.
 */
import { makePrincipal, type Principal } from './principal.js';

/** The granted scopes: `scope` (space-separated, the OAuth form) or `scp` (an array, some servers). */
export function scopesOf(claims: Record<string, unknown>): string[] {
  if (typeof claims.scope === 'string') return claims.scope.split(' ').filter((scope) => scope !== '');
  if (Array.isArray(claims.scp))
    return claims.scp.filter((scope): scope is string => typeof scope === 'string');
  if (typeof claims.scp === 'string') return claims.scp.split(' ').filter((scope) => scope !== '');
  return [];
}

/**
 * The principal the claims vouch for, or undefined when they name nobody. A client-credentials
 * token may lack `sub` (introspection answers often do): the client is then the caller.
 */
export function principalFromClaims(claims: Record<string, unknown>): Principal | undefined {
  const clientId =
    typeof claims.client_id === 'string'
      ? claims.client_id
      : typeof claims.azp === 'string'
        ? claims.azp
        : undefined;
  const subject = typeof claims.sub === 'string' && claims.sub !== '' ? claims.sub : clientId;
  if (subject === undefined || subject === '') return undefined;
  return makePrincipal({
    subject,
    issuer: typeof claims.iss === 'string' ? claims.iss : undefined,
    clientId,
    scopes: scopesOf(claims),
    expiresAt: typeof claims.exp === 'number' ? claims.exp * 1000 : undefined,
    claims,
  });
}
