/**
 * The router's side of scopes: a call, get or read whose caller lacks the scopes of its primitive
 * is refused before anything runs (-32012, `data.requiredScopes`), and a listing shows a caller only
 * what its scopes reach. Over HTTP the transport has refused such a request already (403 with a
 * step-up challenge); this is what WebSocket, stdio and calls made through ctx.tools() meet.
 *
 * Without a principal (no auth on the transport) nothing is checked and listings are the
 * registries' own arrays, untouched: the hot path of a server without auth pays one comparison.
 */
import { holdsScopes, insufficientScopeMessage, missingScopes } from '../auth/scopes.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import type { RequestScope } from './request-scope.js';

/** Throws -32012 when the request's principal lacks one of `required`; `what` names the primitive. */
export function requireScopes(scope: RequestScope, required: readonly string[], what: string): void {
  if (missingScopes(scope.principal, required).length === 0) return;
  throw new ProtocolError(ErrorCode.InsufficientScope, insufficientScopeMessage(what, required), {
    requiredScopes: [...required],
  });
}

/**
 * The entries of a listing this request may see: all of them without a principal or when the
 * server lists everything (`listOutOfScope`), else those whose scopes the principal holds.
 */
export function visibleEntries<T extends { readonly scopes: readonly string[] }>(
  entries: readonly T[],
  scope: RequestScope,
  listOutOfScope: boolean,
): readonly T[] {
  const { principal } = scope;
  if (principal === undefined || listOutOfScope) return entries;
  if (entries.every((entry) => entry.scopes.length === 0)) return entries;
  return entries.filter((entry) => holdsScopes(principal, entry.scopes));
}
