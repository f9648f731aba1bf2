/**
 * The one way back from a principal to the raw access token it was made from, for code that opts
 * in (a tool that must present the caller's own token somewhere it is meant for). The token is
 * kept beside the principal in a WeakMap, not on it: it is no field, enumerable or not, so it is
 * never serialized, logged, cloned into a worker or stored with a task. It lives as long as the
 * principal object does, in this process only.
 */
import type { Principal } from './principal.js';

const tokens = new WeakMap<Principal, string>();

export function rememberAccessToken(principal: Principal, token: string): void {
  tokens.set(principal, token);
}

/** The access token `principal` was verified from, when it came from `oauthResourceServer` in this process. */
export function accessTokenOf(principal: Principal): string | undefined {
  return tokens.get(principal);
}
