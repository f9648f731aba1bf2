/**
 * Verifying a JWT access token (RFC 9068) with `jose`: signature against the issuer's published
 * keys, then `iss`, `aud`, `exp`, `nbf` with a clock tolerance, and the header's `typ`.
 *
 * The keys come from `createRemoteJWKSet`, which caches them and, on a `kid` it does not know,
 * fetches the set again at most once per cooldown: a rotation at the authorization server is
 * picked up by the first token signed with the new key, and a flood of tokens with made-up kids
 * cannot turn into a flood of fetches. Only asymmetric algorithms are accepted (a public key used
 * as an HMAC secret, the classic confusion, cannot verify anything), and `alg: none` never is.
 *
 * A verdict is either the verified claims or a description of what was wrong, phrased for the
 * `error_description` a client sees; trouble reaching the key set is thrown (a server problem,
 * not the caller's).
 */
import type { createRemoteJWKSet, errors as JoseErrors, JWTPayload } from 'jose';

/** jose is loaded at the first token checked: a server that never checks one does not load it. */
type Jose = typeof import('jose');
let jose: Promise<Jose> | undefined;
const loadJose = (): Promise<Jose> => {
  jose ??= import('jose');
  return jose;
};

export const ASYMMETRIC_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

/** Header `typ` values of access tokens: RFC 9068's, and the plain JWT many servers still send. */
const ACCESS_TOKEN_TYPES = new Set(['at+jwt', 'application/at+jwt', 'jwt']);

export type TokenCheck = { claims: Record<string, unknown> } | { invalid: string };

export interface JwtAccessTokenOptions {
  issuer: string;
  /** The key set's URL, resolved when first needed (it may come from issuer metadata). */
  jwksUri: () => Promise<string>;
  algorithms: readonly string[];
  clockToleranceSec: number;
  jwksCooldownMs: number;
}

/** Whether a token is shaped like a JWS (three base64url parts): opaque tokens go to introspection. */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}

export class JwtAccessTokenVerifier {
  readonly #options: JwtAccessTokenOptions;
  #keys: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;

  constructor(options: JwtAccessTokenOptions) {
    this.#options = options;
  }

  async verify(token: string, audience: string): Promise<TokenCheck> {
    const keys = await this.#keySet();
    const { jwtVerify, errors } = await loadJose();
    let payload: JWTPayload;
    let typ: string | undefined;
    try {
      const result = await jwtVerify(token, keys, {
        issuer: this.#options.issuer,
        audience,
        algorithms: [...this.#options.algorithms],
        clockTolerance: this.#options.clockToleranceSec,
        requiredClaims: ['exp'],
      });
      payload = result.payload;
      typ = result.protectedHeader.typ;
    } catch (error) {
      return { invalid: describeFailure(errors, error, audience) };
    }
    if (typ !== undefined && !ACCESS_TOKEN_TYPES.has(typ.toLowerCase())) {
      return { invalid: `the token's typ is ${JSON.stringify(typ)}, not an access token (at+jwt)` };
    }
    return { claims: payload as Record<string, unknown> };
  }

  #keySet(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    this.#keys ??= this.#options
      .jwksUri()
      .then(async (uri) =>
        (await loadJose()).createRemoteJWKSet(new URL(uri), {
          cooldownDuration: this.#options.jwksCooldownMs,
        }),
      )
      .catch((error: unknown) => {
        this.#keys = undefined;
        throw error;
      });
    return this.#keys;
  }
}

/** What was wrong with the token, or a rethrow when the fault is reaching the keys. */
function describeFailure(errors: typeof JoseErrors, error: unknown, audience: string): string {
  if (error instanceof errors.JWTExpired) return 'the token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case 'aud':
        return `the token was not issued for this resource (${audience})`;
      case 'iss':
        return 'the token was issued by another authorization server';
      case 'nbf':
        return 'the token is not valid yet';
      case 'exp':
        return 'the token carries no expiry';
      default:
        return `the token's ${error.claim} claim is invalid`;
    }
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return "the token's signing algorithm is not accepted";
  if (error instanceof errors.JWKSNoMatchingKey)
    return 'the token was signed with a key the issuer does not publish';
  if (error instanceof errors.JWSSignatureVerificationFailed) return "the token's signature does not verify";
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) throw error;
  if (error instanceof errors.JOSEError) return 'the token is malformed';
  throw error;
}
