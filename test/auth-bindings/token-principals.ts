/**
 * A custom auth hook for the binding suites: fixed bearer tokens, each standing for a principal of
 * the test's choosing (no authorization server needed to prove what a principal binds). An unknown
 * or missing token is refused with 401, as a resource server would.
 */
import type { IncomingMessage } from 'node:http';
import { type AuthHook, makePrincipal, type Principal } from '../../lib/index.js';

export const ISSUER = 'https://issuer.test';

/** Tokens and the principals they stand for: two callers, and the first one with fewer scopes. */
export const PRINCIPALS = {
  /** Alice, with every scope of the suites. */
  'alice-token': makePrincipal({
    subject: 'alice',
    issuer: ISSUER,
    clientId: 'client-a',
    scopes: ['notes:read', 'notes:write'],
    claims: { sub: 'alice', iss: ISSUER, team: 'blue' },
  }),
  /** Alice again (same issuer and subject), a token without notes:write: for the step-up. */
  'alice-readonly': makePrincipal({
    subject: 'alice',
    issuer: ISSUER,
    clientId: 'client-a',
    scopes: ['notes:read'],
  }),
  /** Bob, with every scope too: only his identity differs from Alice's. */
  'bob-token': makePrincipal({
    subject: 'bob',
    issuer: ISSUER,
    clientId: 'client-b',
    scopes: ['notes:read', 'notes:write'],
  }),
} satisfies Record<string, Principal>;

export type TestToken = keyof typeof PRINCIPALS;

/** The hook: `Authorization: Bearer <token>` for one of `principals`, or 401. */
export function tokenAuth(principals: Record<string, Principal> = PRINCIPALS): AuthHook {
  return (request: IncomingMessage) => {
    const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
    const principal = match ? principals[match[1]!] : undefined;
    if (principal === undefined) {
      return {
        status: 401,
        message: 'Unknown or missing bearer token',
        headers: { 'www-authenticate': 'Bearer realm="test"' },
      };
    }
    return { principal };
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
