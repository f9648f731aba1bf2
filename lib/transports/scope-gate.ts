/**
 * The HTTP door's scope check: a request whose principal lacks the scopes of the tool, prompt or
 * resource it targets is refused with 403 and a step-up challenge before it is dispatched, so no
 * handler, task or round starts for it (the MCP authorization spec, `insufficient_scope`).
 *
 * The challenge is the auth hook's own when it has one (`insufficientScope`: an OAuth resource
 * server adds its `resource_metadata` URL); otherwise a plain `Bearer error="insufficient_scope"`
 * naming the scopes. Requests without a principal (no auth hook, or one that vouched for nobody)
 * pass untouched: there is nothing to compare.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../auth/principal.js';
import { insufficientScopeMessage, missingScopes } from '../auth/scopes.js';
import { ErrorCode } from '../protocol/error-codes.js';
import type { AuthHook, AuthRefusal } from './bearer-auth.js';
import { reply } from './http-replies.js';
import type { ModernRouting } from './modern-request-checks.js';

/** One request of a POST body, as far as scopes care. */
export interface ScopedRequest {
  method: string;
  params?: Record<string, unknown> | undefined;
}

export class ScopeGate {
  readonly #routing: ModernRouting;
  readonly #hook: AuthHook | undefined;

  constructor(routing: ModernRouting, hook: AuthHook | undefined) {
    this.#routing = routing;
    this.#hook = hook;
  }

  /**
   * The 403 for `requests` when `principal` lacks a scope one of them needs; the challenge names
   * every scope those requests require. Undefined when they may go on.
   */
  refusal(
    principal: Principal | undefined,
    requests: readonly ScopedRequest[],
    request: IncomingMessage,
  ): AuthRefusal | undefined {
    if (principal === undefined) return undefined;
    let needed: Set<string> | undefined;
    for (const { method, params } of requests) {
      const required = this.#routing.requiredScopes(method, params);
      if (missingScopes(principal, required).length === 0) continue;
      needed ??= new Set();
      for (const scope of required!) needed.add(scope);
    }
    if (needed === undefined) return undefined;
    const scopes = [...needed];
    if (this.#hook?.insufficientScope) return this.#hook.insufficientScope(scopes, request);
    return {
      status: 403,
      message: insufficientScopeMessage('this request', scopes),
      headers: {
        'www-authenticate': `Bearer error="insufficient_scope", scope="${scopes.join(' ')}", error_description="the token lacks a scope this request needs"`,
      },
    };
  }
}

/** Sends a scope refusal: its status and challenge, a JSON-RPC error (-32012) naming the scopes. */
export function sendScopeRefusal(response: ServerResponse, refusal: AuthRefusal): void {
  reply(response, refusal.status, ErrorCode.InsufficientScope, refusal.message, refusal.headers);
}
