/**
 * RFC 7662 token introspection, for opaque access tokens: weft asks the authorization server (as a
 * client of its own, with its own credentials) whether a token is active and what it grants, and
 * then checks the answer as it checks a JWT: the issuer, the audience (a token for another
 * resource is refused even when active), the validity window.
 */
import type { TokenCheck } from './jwt-access-token.js';

export interface IntrospectionOptions {
  /** The introspection endpoint; found in the issuer's metadata when absent. */
  endpoint?: string;
  /** weft's own client credentials at the authorization server (sent as HTTP Basic). */
  clientId: string;
  clientSecret: string;
}

export interface IntrospectionCheckOptions {
  endpoint: () => Promise<string>;
  clientId: string;
  clientSecret: string;
  issuer: string;
  clockToleranceSec: number;
  timeoutMs?: number;
}

export class TokenIntrospection {
  readonly #options: IntrospectionCheckOptions;
  readonly #authorization: string;

  constructor(options: IntrospectionCheckOptions) {
    this.#options = options;
    // RFC 6749 §2.3.1: id and secret are form-encoded before they are joined.
    const basic = `${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`;
    this.#authorization = `Basic ${Buffer.from(basic).toString('base64')}`;
  }

  async check(token: string, audience: string, now = Date.now()): Promise<TokenCheck> {
    const endpoint = await this.#options.endpoint();
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        authorization: this.#authorization,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
      signal: AbortSignal.timeout(this.#options.timeoutMs ?? 10_000),
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(
        `oauthResourceServer: introspection at ${endpoint} answered HTTP ${response.status}; check introspection.clientId and clientSecret`,
      );
    }
    const answer = (await response.json()) as Record<string, unknown>;
    return this.#judge(answer, audience, now);
  }

  #judge(answer: Record<string, unknown>, audience: string, now: number): TokenCheck {
    if (answer.active !== true) return { invalid: 'the token is not active' };
    if (answer.iss !== undefined && answer.iss !== this.#options.issuer) {
      return { invalid: 'the token was issued by another authorization server' };
    }
    const audiences = Array.isArray(answer.aud) ? answer.aud : answer.aud === undefined ? [] : [answer.aud];
    if (!audiences.includes(audience))
      return { invalid: `the token was not issued for this resource (${audience})` };
    const tolerance = this.#options.clockToleranceSec * 1000;
    if (typeof answer.exp !== 'number') return { invalid: 'the token carries no expiry' };
    if (answer.exp * 1000 + tolerance <= now) return { invalid: 'the token has expired' };
    if (typeof answer.nbf === 'number' && answer.nbf * 1000 - tolerance > now) {
      return { invalid: 'the token is not valid yet' };
    }
    // The server we asked vouches for its own tokens: its issuer is the token's.
    return { claims: { ...answer, iss: this.#options.issuer } };
  }
}
