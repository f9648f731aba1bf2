/**
 * A minimal token issuer for the auth benchmark, in the runner's process: one RSA key published as
 * a JWKS with RFC 8414 metadata on a free loopback port, and the access tokens it signs. Not an
 * authorization server (the auth suites run against oidc-provider): the benchmark measures what a
 * protected weft spends per request, and only the verifier's side of a token is on that path.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

export interface BenchIssuer {
  issuer: string;
  /** An RFC 9068 access token for `audience`, valid for an hour. */
  token(audience: string, scope?: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startBenchIssuer(): Promise<BenchIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench-1', alg: 'ES256', use: 'sig' };
  let issuer = '';
  const server: Server = createServer((request, response) => {
    const body =
      request.url === '/.well-known/oauth-authorization-server'
        ? { issuer, jwks_uri: `${issuer}/jwks` }
        : request.url === '/jwks'
          ? { keys: [jwk] }
          : undefined;
    if (body === undefined) response.writeHead(404).end();
    else response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    token: (audience, scope = 'mcp:tools') =>
      new SignJWT({ scope, client_id: 'bench-client' })
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: jwk.kid })
        .setIssuer(issuer)
        .setSubject('bench-client')
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(privateKey),
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
