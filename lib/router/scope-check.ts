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

/** What knows the scopes of each kind of primitive (the registries). */
export interface ScopesOfPrimitives {
  toolScopes(name: string): readonly string[] | undefined;
  promptScopes(name: string): readonly string[] | undefined;
  resourceScopes(uri: string): readonly string[] | undefined;
  /** The scopes of the template registered as exactly `uriTemplate` (what completion names). */
  templateScopes(uriTemplate: string): readonly string[] | undefined;
}

/**
 * The scopes the primitive a request targets requires, read from its method and params alone: what
 * the HTTP door asks before dispatch, so a caller lacking them gets its 403 before anything runs.
 */
export function requiredScopesOf(
  method: string,
  params: Record<string, unknown> | undefined,
  primitives: ScopesOfPrimitives,
): readonly string[] | undefined {
  switch (method) {
    case 'tools/call':
      return typeof params?.name === 'string' ? primitives.toolScopes(params.name) : undefined;
    case 'prompts/get':
      return typeof params?.name === 'string' ? primitives.promptScopes(params.name) : undefined;
    case 'resources/read':
    case 'resources/subscribe':
      return typeof params?.uri === 'string' ? primitives.resourceScopes(params.uri) : undefined;
    case 'completion/complete': {
      const ref = params?.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
      if (ref?.type === 'ref/prompt' && typeof ref.name === 'string')
        return primitives.promptScopes(ref.name);
      if (ref?.type === 'ref/resource' && typeof ref.uri === 'string')
        return primitives.templateScopes(ref.uri);
      return undefined;
    }
    default:
      return undefined;
  }
}
