/**
 * Who is calling: the principal an auth hook vouches for at the transport's door.
 *
 * It enters once, where the credentials are read (an HTTP request, a WebSocket upgrade, a stdio
 * server's fixed principal), and from there travels as data: on the session, on each request's
 * scope, into handlers as `ctx.auth`, onto the tasks and states it creates. No room re-derives it
 * from headers. Its identity is issuer + subject: two issuers may hand out the same subject.
 */

export interface Principal {
  /** The token's `sub`: who the caller is to its issuer. */
  readonly subject: string;
  /** The token's `iss`; undefined for principals a custom hook made up without an issuer. */
  readonly issuer: string | undefined;
  /** The OAuth client the token was issued to (`client_id`), when known. */
  readonly clientId: string | undefined;
  /** The scopes the token grants. */
  readonly scopes: readonly string[];
  /** When the credentials stop being valid, in epoch milliseconds; undefined for no known end. */
  readonly expiresAt: number | undefined;
  /** Every claim of the token (or the introspection answer), as verified. */
  readonly claims: Readonly<Record<string, unknown>>;
}

/**
 * What makes two principals the same caller: issuer + subject, in one string. A token without `sub`
 * stands for its client (token-principal.ts): its key says so, so that client "alice" and user
 * "alice" of one issuer are two callers, with two shares and two sets of tasks.
 */
export function principalKey(principal: Principal): string {
  let key = keys.get(principal);
  if (key === undefined) {
    const issuer = principal.issuer ?? '';
    key = JSON.stringify(
      standsForClient(principal) ? [issuer, principal.subject, 'client'] : [issuer, principal.subject],
    );
    keys.set(principal, key);
  }
  return key;
}

/** Whether the principal is an OAuth client acting for itself: its subject is its client_id, no `sub`. */
function standsForClient(principal: Principal): boolean {
  const sub = principal.claims.sub;
  return (
    principal.clientId !== undefined &&
    principal.subject === principal.clientId &&
    !(typeof sub === 'string' && sub !== '')
  );
}

/** Principals are frozen and long-lived (one per verified token): their key is worked out once. */
const keys = new WeakMap<Principal, string>();

/** Whether two (possibly absent) principals are the same caller; two absent ones are. */
export function samePrincipal(a: Principal | undefined, b: Principal | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return principalKey(a) === principalKey(b);
}

/** A frozen principal with every field present, from the parts a hook knows. */
export function makePrincipal(parts: {
  subject: string;
  issuer?: string | undefined;
  clientId?: string | undefined;
  scopes?: readonly string[] | undefined;
  expiresAt?: number | undefined;
  claims?: Record<string, unknown> | undefined;
}): Principal {
  return Object.freeze({
    subject: parts.subject,
    issuer: parts.issuer,
    clientId: parts.clientId,
    scopes: Object.freeze([...(parts.scopes ?? [])]),
    expiresAt: parts.expiresAt,
    claims: Object.freeze({ ...(parts.claims ?? {}) }),
  });
}
