/**
 * Scopes a tool, prompt, resource or template requires, and whether a principal holds them.
 *
 * A primitive lists the OAuth scopes a caller needs (`scopes: [...]`, all of them required). They
 * are checked only for callers that have a principal: a transport without an auth hook vouches for
 * nobody, so there is nothing to compare and the server behaves as it always did. The checks are
 * shared by the HTTP door (which answers 403 `insufficient_scope` before anything runs), the router
 * (a JSON-RPC error over WebSocket and stdio, and for calls a handler makes through ctx.tools()) and
 * the listings (a caller sees only what it may use).
 */
import type { Principal } from './principal.js';

export const NO_SCOPES: readonly string[] = Object.freeze([]);

/**
 * The checked `scopes` of a definition (frozen; NO_SCOPES when absent), or a message saying what
 * is wrong with it. `supported`, when the server names its scopes, bounds what may be required.
 */
export function readScopes(
  value: unknown,
  supported: readonly string[] | undefined,
): { ok: true; scopes: readonly string[] } | { ok: false; problem: string } {
  if (value === undefined) return { ok: true, scopes: NO_SCOPES };
  if (!Array.isArray(value) || !value.every((scope) => typeof scope === 'string' && isScopeToken(scope))) {
    return {
      ok: false,
      problem:
        'scopes must be an array of OAuth scope names (non-empty, no spaces, quotes or backslashes), e.g. ["files:read"]',
    };
  }
  if (supported !== undefined) {
    const unknown = value.filter((scope) => !supported.includes(scope));
    if (unknown.length > 0) {
      return {
        ok: false,
        problem: `scopes ${unknown.map((scope) => JSON.stringify(scope)).join(', ')} are not in the server's scopesSupported (${supported.join(' ') || 'none'}); add them there or fix the name`,
      };
    }
  }
  return { ok: true, scopes: value.length === 0 ? NO_SCOPES : Object.freeze([...new Set(value)]) };
}

/** RFC 6749 §3.3 scope-token: printable ASCII but space, `"` and `\`. */
function isScopeToken(scope: string): boolean {
  return /^[\x21\x23-\x5B\x5D-\x7E]+$/.test(scope);
}

/**
 * The scopes of `required` that `principal` lacks; empty when it holds them all, when nothing is
 * required, or when there is no principal (no auth: nothing to check).
 */
export function missingScopes(
  principal: Principal | undefined,
  required: readonly string[] | undefined,
): readonly string[] {
  if (principal === undefined || required === undefined || required.length === 0) return NO_SCOPES;
  const held = principal.scopes;
  if (required.every((scope) => held.includes(scope))) return NO_SCOPES;
  return required.filter((scope) => !held.includes(scope));
}

/** Whether `principal` may use a primitive requiring `required` (always, without a principal). */
export function holdsScopes(
  principal: Principal | undefined,
  required: readonly string[] | undefined,
): boolean {
  return missingScopes(principal, required).length === 0;
}

/** The scopes `what` needs, and the message a caller lacking some of them is told. */
export function insufficientScopeMessage(what: string, required: readonly string[]): string {
  return `Insufficient scope: ${what} requires the scope${required.length === 1 ? '' : 's'} ${required.join(' ')}; get a token that grants ${required.length === 1 ? 'it' : 'them'}`;
}
