/**
 * A caller's rights, re-checked for as long as it holds a connection that outlives one request (a
 * WebSocket, a legacy GET stream, a 2026-07-28 listen stream or any long modern answer stream).
 *
 * The auth hook judged the opening request once; a token revoked since, or past its `exp`, would
 * otherwise keep the connection served until it closes. So each such connection asks the hook
 * again, on the same opening request (its headers carry the same token), when the hook says the
 * rights it granted must be looked at again (`AuthHook.recheckAt`: for `oauthResourceServer`, when
 * the token's verified window ends, so a revocation is seen within `introspection.cacheTtlMs`, as
 * for requests), and at the principal's `expiresAt` it ends without asking. A refusal ends the
 * connection, with the refusal for the transport to turn into a reason its client can act on.
 *
 * One timer per watched connection, cleared when the connection ends; a hook without `recheckAt`
 * and principals without `expiresAt` cost nothing.
 */
import type { IncomingMessage } from 'node:http';
import type { Principal } from '../auth/principal.js';
import { type AuthHook, type AuthRefusal, callAuthHook, isAccepted } from './bearer-auth.js';

/** What a connection's transport is told when its caller's rights lapsed. */
export type RightsLapse = AuthRefusal;

/** The lapse of a principal past its `expiresAt`: no hook is asked. */
export const TOKEN_EXPIRED: RightsLapse = { status: 401, message: 'The token has expired' };

/** setTimeout's longest delay; a later time is waited for in steps. */
const MAX_TIMER_MS = 2_147_483_647;
/** The least time between two checks of one connection, whatever the hook answers. */
const MIN_RECHECK_MS = 100;

/** Stops watching (the connection ended on its own). */
export type StopWatching = () => void;

export class RightsWatch {
  readonly #hook: AuthHook | undefined;
  readonly #logError: (message: string) => void;

  constructor(hook: AuthHook | undefined, logError: (message: string) => void) {
    this.#hook = hook;
    this.#logError = logError;
  }

  /**
   * Watches the rights `principal` was granted on `request`; `onLapse` is called once, when they
   * lapse. Nothing is watched without a hook or a principal.
   */
  watch(
    request: IncomingMessage,
    principal: Principal | undefined,
    onLapse: (lapse: RightsLapse) => void,
  ): StopWatching {
    const hook = this.#hook;
    if (hook === undefined || principal === undefined) return () => {};
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const lapse = (why: RightsLapse) => {
      if (stopped) return;
      stopped = true;
      onLapse(why);
    };
    const follow = (held: Principal) => {
      if (stopped) return;
      const expiresAt = held.expiresAt ?? Number.POSITIVE_INFINITY;
      const at = Math.min(hook.recheckAt?.(held) ?? Number.POSITIVE_INFINITY, expiresAt);
      if (at === Number.POSITIVE_INFINITY) return;
      const fire = () => {
        const now = Date.now();
        if (now >= expiresAt) return lapse(TOKEN_EXPIRED);
        if (now < at) return schedule(at - now);
        const verdict = callAuthHook(hook, request, this.#logError);
        if (verdict instanceof Promise) verdict.then(judge);
        else judge(verdict);
      };
      const schedule = (ms: number) => {
        timer = setTimeout(fire, Math.min(Math.max(ms, MIN_RECHECK_MS), MAX_TIMER_MS));
        timer.unref();
      };
      schedule(at - Date.now());
    };
    const judge = (verdict: Awaited<ReturnType<AuthHook>>) => {
      if (!isAccepted(verdict)) return lapse(verdict);
      // A hook that stops naming a principal still accepts: nothing more to follow.
      if (verdict !== true) follow(verdict.principal);
    };
    follow(principal);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }
}
