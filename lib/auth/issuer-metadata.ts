/**
 * The authorization server's own description of itself, found from its issuer URL: RFC 8414
 * (`/.well-known/oauth-authorization-server`, path-inserted) first, then OpenID Connect Discovery
 * (`<issuer>/.well-known/openid-configuration`). It tells weft where the signing keys
 * (`jwks_uri`) and the introspection endpoint are when they were not given.
 *
 * A document whose `issuer` is not the configured one is refused (RFC 8414 §3.3): otherwise a
 * misconfigured or hostile host could name keys of its choosing. Fetched once; a failure is
 * forgotten so the next request tries again.
 */

export interface IssuerMetadata {
  issuer: string;
  jwks_uri?: string;
  introspection_endpoint?: string;
  [member: string]: unknown;
}

/** The discovery URLs of `issuer`, in the order they are tried. */
export function discoveryUrlsOf(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

export class IssuerMetadataSource {
  readonly #issuer: string;
  readonly #timeoutMs: number;
  #pending: Promise<IssuerMetadata> | undefined;

  constructor(issuer: string, timeoutMs = 10_000) {
    this.#issuer = issuer;
    this.#timeoutMs = timeoutMs;
  }

  get(): Promise<IssuerMetadata> {
    this.#pending ??= this.#discover().catch((error: unknown) => {
      this.#pending = undefined;
      throw error;
    });
    return this.#pending;
  }

  async #discover(): Promise<IssuerMetadata> {
    const problems: string[] = [];
    for (const url of discoveryUrlsOf(this.#issuer)) {
      let response: Response;
      try {
        response = await fetch(url, {
          headers: { accept: 'application/json' },
          signal: AbortSignal.timeout(this.#timeoutMs),
        });
      } catch (error) {
        problems.push(`${url}: ${(error as Error).message}`);
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel();
        problems.push(`${url}: HTTP ${response.status}`);
        continue;
      }
      const document = (await response.json()) as IssuerMetadata;
      const issuer = typeof document.issuer === 'string' ? document.issuer.replace(/\/$/, '') : undefined;
      if (issuer !== this.#issuer.replace(/\/$/, '')) {
        throw new Error(
          `oauthResourceServer: the metadata at ${url} names issuer ${JSON.stringify(document.issuer)}, not ${JSON.stringify(this.#issuer)}; check the issuer option`,
        );
      }
      return document;
    }
    throw new Error(
      `oauthResourceServer: no authorization server metadata for issuer ${this.#issuer} (${problems.join('; ')}); give jwksUri (and introspection.endpoint) explicitly or fix the issuer`,
    );
  }
}
