/**
 * A real OAuth 2.1 authorization server for the auth suites: `oidc-provider` (OpenID-certified) on a
 * free port of 127.0.0.1, with the client-credentials grant, resource indicators (RFC 8707: a token
 * names the resource it is for as its audience), JWT access tokens (RFC 9068) or opaque ones, and
 * introspection (RFC 7662). Tests mint tokens through its token endpoint like any client would,
 * rotate its signing keys, and, for the cases no honest server issues (expired on arrival, not yet
 * valid, `alg: none`), sign tokens of their own with its real key.
 *
 * Each instance has its own token storage (oidc-provider's default memory adapter is one per
 * process, which would let one test server introspect another's tokens).
 */
import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import Provider from 'oidc-provider';
import { freePort } from './free-port.js';

export interface TestClient {
  clientId: string;
  clientSecret: string;
  /** The scopes this client may be granted. */
  scopes: readonly string[];
  /** Its access tokens are JWTs (default) or opaque, checked by introspection. */
  tokenFormat?: 'jwt' | 'opaque';
  /** Lifetime of its access tokens in seconds (default 300). */
  tokenTtlSeconds?: number;
}

export interface MintedToken {
  accessToken: string;
  expiresIn: number;
  scope: string | undefined;
}

export interface AuthorizationServerUnderTest {
  /** The issuer URL (`http://127.0.0.1:<port>`, no trailing slash), as it appears in `iss`. */
  issuer: string;
  tokenEndpoint: string;
  introspectionEndpoint: string;
  jwksUri: string;
  /** How often its JWKS was fetched, so a test can see a verifier's cache at work. */
  readonly jwksFetches: number;
  /** How often a token was introspected. */
  readonly introspections: number;
  /** Every request it received, as `METHOD /path` (no query), in order. */
  readonly requestLog: readonly string[];
  /** A client-credentials token for `resource` (RFC 8707), as a client asks for one. */
  mintToken(request: { clientId: string; resource: string; scope?: string }): Promise<MintedToken>;
  /** Revokes a token at the revocation endpoint (RFC 7009), as the client it was issued to. */
  revokeToken(request: { clientId: string; token: string }): Promise<void>;
  /** A token signed with the current signing key, with any claims and header a test wants. */
  sign(claims: Record<string, unknown>, header?: { kid?: string; typ?: string }): Promise<string>;
  /** The public key tokens are signed with now, as a JWK. */
  readonly publicJwk: JWK;
  /** A new signing key: it signs from now on; the old one stays published unless `dropOld`. */
  rotateKeys(options?: { dropOld?: boolean }): Promise<void>;
  stop(): Promise<void>;
}

export interface AuthorizationServerOptions {
  clients: readonly TestClient[];
  /** Every scope the server knows (default: the union of the clients' scopes). */
  scopes?: readonly string[];
}

interface SigningKey {
  privateJwk: JWK;
  publicJwk: JWK;
}

let keyCounter = 0;
async function newSigningKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = `test-key-${++keyCounter}-${Date.now().toString(36)}`;
  return {
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' },
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' },
  };
}

/** oidc-provider's adapter contract, kept in one Map per server (client-credentials needs little). */
function adapterFor(store: Map<string, { payload: Record<string, unknown>; expiresAt: number }>) {
  return class InstanceMemoryAdapter {
    constructor(readonly model: string) {}
    key(id: string) {
      return `${this.model}:${id}`;
    }
    async upsert(id: string, payload: Record<string, unknown>, expiresIn: number) {
      store.set(this.key(id), { payload, expiresAt: Date.now() + expiresIn * 1000 });
    }
    async find(id: string) {
      const entry = store.get(this.key(id));
      if (!entry || entry.expiresAt < Date.now()) return undefined;
      return entry.payload;
    }
    async findByUserCode() {
      return undefined;
    }
    async findByUid() {
      return undefined;
    }
    async consume(id: string) {
      const entry = store.get(this.key(id));
      if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string) {
      store.delete(this.key(id));
    }
    async revokeByGrantId() {}
  };
}

export async function startAuthorizationServer(
  options: AuthorizationServerOptions,
): Promise<AuthorizationServerUnderTest> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const clients = new Map(options.clients.map((client) => [client.clientId, client]));
  const scopes = options.scopes ?? [...new Set(options.clients.flatMap((client) => client.scopes))];
  const store = new Map<string, { payload: Record<string, unknown>; expiresAt: number }>();
  let keys: SigningKey[] = [await newSigningKey()];
  let jwksFetches = 0;
  let introspections = 0;
  const requestLog: string[] = [];

  const makeProvider = () => {
    const provider = new Provider(issuer, {
      adapter: adapterFor(store),
      clients: options.clients.map((client) => ({
        client_id: client.clientId,
        client_secret: client.clientSecret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        ...(client.scopes.length > 0 ? { scope: client.scopes.join(' ') } : {}),
        token_endpoint_auth_method: 'client_secret_basic',
      })),
      // The first key signs; the others are published for tokens they signed before a rotation.
      jwks: { keys: keys.map((key) => key.privateJwk) },
      scopes: [...scopes],
      cookies: { keys: ['weft-test-cookie-key'] },
      ttl: {
        ClientCredentials: (_ctx: unknown, token: { resourceServer?: { accessTokenTTL?: number } }) =>
          token.resourceServer?.accessTokenTTL ?? 300,
      },
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        // Any client that authenticates may introspect (weft introspects with credentials of its own).
        introspection: { enabled: true, allowedPolicy: () => true },
        revocation: { enabled: true },
        resourceIndicators: {
          enabled: true,
          // Any resource a client names is a resource server: a token for another resource than
          // weft's is how the audience check is tested, with a token this server really issued.
          getResourceServerInfo: (_ctx: unknown, resourceIndicator: string, client: { clientId: string }) => {
            const known = clients.get(client.clientId);
            return {
              audience: resourceIndicator,
              scope: (known?.scopes ?? []).join(' '),
              accessTokenFormat: known?.tokenFormat ?? 'jwt',
              accessTokenTTL: known?.tokenTtlSeconds ?? 300,
              ...(known?.tokenFormat === 'opaque' ? {} : { jwt: { sign: { alg: 'RS256' } } }),
            };
          },
        },
      },
    });
    // oidc-provider logs a line per refused request through its own listeners: tests refuse on purpose.
    provider.on('server_error', (_ctx: unknown, error: Error) => {
      console.error('authorization server error:', error);
    });
    return provider;
  };

  let provider = makeProvider();
  let callback = provider.callback();
  const server: Server = createServer((request, response) => {
    requestLog.push(`${request.method} ${(request.url ?? '/').split('?')[0]}`);
    if (request.url?.startsWith('/jwks')) jwksFetches++;
    if (request.url?.startsWith('/token/introspection')) introspections++;
    callback(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });

  const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<
    string,
    string
  >;

  return {
    issuer,
    tokenEndpoint: discovery.token_endpoint!,
    introspectionEndpoint: discovery.introspection_endpoint!,
    jwksUri: discovery.jwks_uri!,
    get jwksFetches() {
      return jwksFetches;
    },
    requestLog,
    get introspections() {
      return introspections;
    },
    get publicJwk() {
      return keys[0]!.publicJwk;
    },
    async mintToken({ clientId, resource, scope }) {
      const client = clients.get(clientId);
      if (!client) throw new Error(`unknown test client ${clientId}`);
      const body = new URLSearchParams({ grant_type: 'client_credentials', resource });
      if (scope !== undefined) body.set('scope', scope);
      const response = await fetch(discovery.token_endpoint!, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body,
      });
      const answer = (await response.json()) as Record<string, unknown>;
      if (!response.ok) throw new Error(`token request refused: ${JSON.stringify(answer)}`);
      return {
        accessToken: answer.access_token as string,
        expiresIn: answer.expires_in as number,
        scope: answer.scope as string | undefined,
      };
    },
    async revokeToken({ clientId, token }) {
      const client = clients.get(clientId);
      if (!client) throw new Error(`unknown test client ${clientId}`);
      const response = await fetch(discovery.revocation_endpoint!, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
      });
      if (!response.ok)
        throw new Error(`revocation refused: HTTP ${response.status} ${await response.text()}`);
    },
    async sign(claims, header = {}) {
      const key = keys[0]!;
      const privateKey = await importJWK(key.privateJwk, 'RS256');
      return new SignJWT(claims)
        .setProtectedHeader({
          alg: 'RS256',
          typ: header.typ ?? 'at+jwt',
          kid: header.kid ?? key.publicJwk.kid,
        })
        .sign(privateKey);
    },
    async rotateKeys({ dropOld = false } = {}) {
      const fresh = await newSigningKey();
      keys = dropOld ? [fresh] : [fresh, ...keys];
      provider = makeProvider();
      callback = provider.callback();
    },
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
