/**
 * Every token `oauthResourceServer` must refuse, at the wire, against a real authorization server:
 * each gets 401 and a challenge that says where the metadata is, which scopes every request needs (when any), and (a
 * token having been sent) `error="invalid_token"` with what was wrong. Tokens the authorization
 * server really issued cover the audience and issuer checks; the cases no honest server issues
 * (expired on arrival, not yet valid, `alg: none`, a public key used as an HMAC secret, a key it
 * never published) are signed by the test. The raw token never comes back in an answer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { exportSPKI, generateKeyPair, importJWK, SignJWT, UnsecuredJWT } from 'jose';
import { oauthResourceServer } from '../../lib/index.js';
import {
  type AuthorizationServerUnderTest,
  startAuthorizationServer,
} from '../support/authorization-server.js';
import { initializeRequest, type ProtectedServer, serveProtected } from './protected-server.js';

const SCOPES = ['mcp:tools', 'mcp:admin'];
const CLIENTS = [
  { clientId: 'weft-client', clientSecret: 'weft-client-secret', scopes: SCOPES },
  {
    clientId: 'opaque-client',
    clientSecret: 'opaque-secret',
    scopes: ['mcp:tools'],
    tokenFormat: 'opaque' as const,
  },
  { clientId: 'weft-introspector', clientSecret: 'introspector-secret', scopes: [] },
];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const now = () => Math.floor(Date.now() / 1000);

let as: AuthorizationServerUnderTest;
let otherAs: AuthorizationServerUnderTest;
let weft: ProtectedServer;
let challengeStart: string;

before(async () => {
  [as, otherAs] = await Promise.all([
    startAuthorizationServer({ clients: CLIENTS }),
    startAuthorizationServer({ clients: CLIENTS }),
  ]);
  weft = await serveProtected({
    issuer: as.issuer,
    introspection: { clientId: 'weft-introspector', clientSecret: 'introspector-secret' },
    scopesSupported: SCOPES,
    clockToleranceSec: 0,
    jwksCooldownMs: 300,
  });
  challengeStart = `Bearer resource_metadata="http://127.0.0.1:${weft.port}/.well-known/oauth-protected-resource/mcp"`;
});
after(async () => {
  await weft.close();
  await Promise.all([as.stop(), otherAs.stop()]);
});

/** What a request with this Authorization header gets. */
async function attempt(authorization?: string, url = weft.url) {
  const response = await initializeRequest(url, authorization === undefined ? {} : { authorization });
  const body = await response.text();
  return { status: response.status, challenge: response.headers.get('www-authenticate') ?? '', body };
}

/** Asserts the refusal of `token`: 401, invalid_token, a description matching `why`, no echo. */
async function assertRefused(token: string, why: RegExp) {
  const { status, challenge, body } = await attempt(`Bearer ${token}`);
  assert.equal(status, 401, body);
  assert.ok(
    challenge.startsWith(`${challengeStart}, error="invalid_token", error_description="`),
    `challenge was ${challenge}`,
  );
  assert.match(challenge, why);
  assert.match(JSON.parse(body).error.message, why);
  assert.ok(!body.includes(token) && !challenge.includes(token), 'the token is never echoed');
}

const claims = (extra: Record<string, unknown> = {}) => ({
  iss: as.issuer,
  aud: weft.url,
  sub: 'someone',
  client_id: 'weft-client',
  scope: 'mcp:tools',
  iat: now(),
  exp: now() + 300,
  ...extra,
});

describe('what weft accepts', () => {
  it('a JWT the authorization server issued for this resource', async () => {
    const { accessToken } = await as.mintToken({
      clientId: 'weft-client',
      resource: weft.url,
      scope: 'mcp:tools',
    });
    const { status, body } = await attempt(`Bearer ${accessToken}`);
    assert.equal(status, 200, body);
  });

  it('an opaque token, by introspection, asked once and then remembered (for introspection.cacheTtlMs at most)', async () => {
    const { accessToken } = await as.mintToken({
      clientId: 'opaque-client',
      resource: weft.url,
      scope: 'mcp:tools',
    });
    assert.ok(!accessToken.includes('.'), 'the authorization server issued an opaque token');
    const before = as.introspections;
    for (let round = 0; round < 3; round++)
      assert.equal((await attempt(`Bearer ${accessToken}`)).status, 200);
    assert.equal(as.introspections - before, 1);
  });
});

describe('what weft refuses with 401', () => {
  it('no token: the challenge without an error, so a client starts discovery', async () => {
    const { status, challenge, body } = await attempt();
    assert.equal(status, 401);
    assert.equal(challenge, challengeStart);
    assert.match(JSON.parse(body).error.message, /bearer token/);
  });

  it('a token in the query string, even a valid one', async () => {
    const { accessToken } = await as.mintToken({ clientId: 'weft-client', resource: weft.url });
    const { status, challenge, body } = await attempt(undefined, `${weft.url}?access_token=${accessToken}`);
    assert.equal(status, 401);
    assert.ok(challenge.startsWith(`${challengeStart}, error="invalid_request"`), challenge);
    assert.match(JSON.parse(body).error.message, /query string/);
  });

  it('an Authorization header that is not a bearer token', async () => {
    const { status, challenge } = await attempt('Basic d2VmdDpzZWNyZXQ=');
    assert.equal(status, 401);
    assert.ok(challenge.startsWith(`${challengeStart}, error="invalid_request"`), challenge);
  });

  it('a token the authorization server issued for another resource', async () => {
    const other = `http://127.0.0.1:${weft.port}/other`;
    const { accessToken } = await as.mintToken({ clientId: 'weft-client', resource: other });
    await assertRefused(accessToken, /not issued for this resource/);
  });

  it('an opaque token issued for another resource, though active', async () => {
    const { accessToken } = await as.mintToken({
      clientId: 'opaque-client',
      resource: 'https://elsewhere.example/mcp',
    });
    await assertRefused(accessToken, /not issued for this resource/);
  });

  it('a token from another authorization server, for this very resource', async () => {
    const { accessToken } = await otherAs.mintToken({ clientId: 'weft-client', resource: weft.url });
    await assertRefused(accessToken, /another authorization server|key the issuer does not publish/);
  });

  it("a token signed with this issuer's key but naming another issuer", async () => {
    await assertRefused(
      await as.sign(claims({ iss: otherAs.issuer })),
      /issued by another authorization server/,
    );
  });

  it('a token claiming this issuer but signed by another server', async () => {
    const { accessToken } = await otherAs.mintToken({ clientId: 'weft-client', resource: weft.url });
    const [, payload] = accessToken.split('.');
    const forged = { ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), iss: as.issuer };
    const { privateKey } = await generateKeyPair('RS256');
    const token = await new SignJWT(forged)
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: as.publicJwk.kid! })
      .sign(privateKey);
    await assertRefused(token, /signature does not verify/);
  });

  it('an expired token', async () => {
    await assertRefused(await as.sign(claims({ iat: now() - 600, exp: now() - 60 })), /expired/);
  });

  it('a token not valid yet', async () => {
    await assertRefused(await as.sign(claims({ nbf: now() + 120 })), /not valid yet/);
  });

  it('a token without an expiry', async () => {
    const { exp: _, ...forever } = claims();
    await assertRefused(await as.sign(forever), /no expiry/);
  });

  it('alg: none', async () => {
    await assertRefused(new UnsecuredJWT(claims()).encode(), /algorithm is not accepted/);
  });

  it('an HMAC "signed" with the public key as its secret', async () => {
    const publicKey = await importJWK(as.publicJwk, 'RS256');
    const pem = await exportSPKI(publicKey as Parameters<typeof exportSPKI>[0]);
    for (const secret of [pem, JSON.stringify(as.publicJwk)]) {
      const token = await new SignJWT(claims())
        .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: as.publicJwk.kid! })
        .sign(new TextEncoder().encode(secret));
      await assertRefused(token, /algorithm is not accepted/);
    }
  });

  it('a token of another type than an access token', async () => {
    await assertRefused(await as.sign(claims(), { typ: 'dpop+jwt' }), /not an access token/);
  });

  it('an unknown kid, after exactly one fetch of the key set; a second one within the cooldown fetches nothing', async () => {
    await sleep(400); // past the cooldown of the fetch the first tests made
    const { privateKey } = await generateKeyPair('RS256');
    const stranger = (kid: string) =>
      new SignJWT(claims()).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid }).sign(privateKey);
    const fetches = as.jwksFetches;
    await assertRefused(await stranger('never-published-1'), /key the issuer does not publish/);
    assert.equal(as.jwksFetches - fetches, 1, 'one refresh of the key set');
    await assertRefused(await stranger('never-published-2'), /key the issuer does not publish/);
    assert.equal(as.jwksFetches - fetches, 1, 'no second refresh within the cooldown');
  });

  it('an opaque-looking token when no introspection is configured, and a made-up one when it is', async () => {
    const jwtOnly = await serveProtected({ issuer: as.issuer });
    try {
      const { accessToken } = await as.mintToken({ clientId: 'opaque-client', resource: jwtOnly.url });
      const { status, challenge } = await attempt(`Bearer ${accessToken}`, jwtOnly.url);
      assert.equal(status, 401);
      assert.match(challenge, /error="invalid_token".*no introspection/);
    } finally {
      await jwtOnly.close();
    }
    await assertRefused('made-up-token-that-was-never-issued', /not active/);
  });
});

describe('oauthResourceServer options', () => {
  it('refuses at construction what could not work or would be unsafe', () => {
    const issuer = 'https://auth.example.com';
    assert.throws(() => oauthResourceServer({ issuer, audiance: 'x' } as never), /unknown option "audiance"/);
    assert.throws(() => oauthResourceServer({ issuer, algorithms: ['HS256'] }), /HS256.*asymmetric/);
    assert.throws(() => oauthResourceServer({ issuer, algorithms: ['none'] }), /"none" is not accepted/);
    assert.throws(() => oauthResourceServer({ issuer, audience: 'https://mcp.example.com/mcp/' }), /slash/);
    assert.throws(() => oauthResourceServer({ issuer, audience: 'mcp.example.com' }), /absolute URL/);
    assert.throws(
      () => oauthResourceServer({ issuer, scopesSupported: ['a'], requiredScopes: ['b'] }),
      /requiredScopes b are not in scopesSupported/,
    );
    assert.throws(
      () => oauthResourceServer({ issuer, introspection: { clientId: 'x' } as never }),
      /clientSecret/,
    );
    assert.throws(() => oauthResourceServer({ issuer: 'not a url' }), /issuer must be an absolute URL/);
  });
});
