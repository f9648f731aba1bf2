/**
 * Living with an authorization server over time: its signing keys rotate (the first token signed
 * with the new key makes weft fetch the key set once, and tokens of the old key keep working while
 * it is still published), and a token that lacks a scope gets the step-up refusal (403
 * `insufficient_scope` naming the scopes needed) until the client brings one that has them. The
 * scopes here are server-wide (`requiredScopes`); per-tool scopes build on the same refusal
 * (`insufficientScope`), checked in their own suite.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { oauthResourceServer } from '../../lib/index.js';
import {
  type AuthorizationServerUnderTest,
  startAuthorizationServer,
} from '../support/authorization-server.js';
import { initializeRequest, type ProtectedServer, serveProtected } from './protected-server.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

let as: AuthorizationServerUnderTest;
before(async () => {
  as = await startAuthorizationServer({
    clients: [{ clientId: 'agent', clientSecret: 'agent-secret', scopes: ['mcp:tools', 'mcp:admin'] }],
  });
});
after(() => as.stop());

describe('signing key rotation at the authorization server', () => {
  let weft: ProtectedServer;
  before(async () => {
    weft = await serveProtected({ issuer: as.issuer, jwksCooldownMs: 200 });
  });
  after(() => weft.close());

  it("picks up the new key with one fetch, and still takes the old key's tokens", async () => {
    const [seen, unseen] = await Promise.all([
      as.mintToken({ clientId: 'agent', resource: weft.url }),
      as.mintToken({ clientId: 'agent', resource: weft.url }),
    ]);
    assert.equal((await initializeRequest(weft.url, bearer(seen.accessToken))).status, 200);
    const fetchesBefore = as.jwksFetches;
    await as.rotateKeys();
    await sleep(300); // past the cooldown of the first fetch
    const fresh = await as.mintToken({ clientId: 'agent', resource: weft.url });
    const kid = (token: string) => JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).kid;
    assert.notEqual(
      kid(fresh.accessToken),
      kid(seen.accessToken),
      'the new token is signed with the new key',
    );
    assert.equal((await initializeRequest(weft.url, bearer(fresh.accessToken))).status, 200);
    assert.equal(as.jwksFetches - fetchesBefore, 1, 'one fetch of the rotated key set');
    assert.equal((await initializeRequest(weft.url, bearer(unseen.accessToken))).status, 200);
    assert.equal(as.jwksFetches - fetchesBefore, 1, 'the old key is in the set it fetched');
  });

  it('verifies each token once: the same token is answered from the cache, for its audience only', async () => {
    const hook = oauthResourceServer({ issuer: as.issuer });
    const { accessToken } = await as.mintToken({ clientId: 'agent', resource: weft.url });
    const request = (host: string) =>
      ({
        headers: { host, authorization: `Bearer ${accessToken}` },
        url: '/mcp',
        socket: { localAddress: '127.0.0.1', localPort: weft.port },
      }) as IncomingMessage;
    const host = new URL(weft.url).host;
    const first = await hook(request(host));
    const second = await hook(request(host));
    assert.ok(
      typeof first === 'object' &&
        'principal' in first &&
        typeof second === 'object' &&
        'principal' in second,
    );
    assert.equal(second.principal, first.principal, 'the very principal the first verification made');
    assert.equal(first.principal.subject, 'agent');
    assert.ok(!Object.values(first.principal).includes(accessToken), 'the raw token is not on the principal');
    // Another audience for this same address and port (localhost): the token is not for it.
    const elsewhere = await hook(request(`localhost:${weft.port}`));
    assert.ok(
      typeof elsewhere === 'object' && 'status' in elsewhere && elsewhere.status === 401,
      'cached for one audience',
    );
  });
});

describe('step-up: a token lacking a scope', () => {
  let weft: ProtectedServer;
  let prm: string;
  before(async () => {
    weft = await serveProtected({
      issuer: as.issuer,
      scopesSupported: ['mcp:tools', 'mcp:admin'],
      requiredScopes: ['mcp:tools', 'mcp:admin'],
    });
    prm = `http://127.0.0.1:${weft.port}/.well-known/oauth-protected-resource/mcp`;
  });
  after(() => weft.close());

  it('gets 403 insufficient_scope naming the scopes needed; a new token with them works', async () => {
    const narrow = await as.mintToken({ clientId: 'agent', resource: weft.url, scope: 'mcp:tools' });
    assert.equal(narrow.scope, 'mcp:tools');
    const refused = await initializeRequest(weft.url, bearer(narrow.accessToken));
    assert.equal(refused.status, 403);
    const challenge = refused.headers.get('www-authenticate') ?? '';
    assert.ok(
      challenge.startsWith(
        `Bearer resource_metadata="${prm}", scope="mcp:tools mcp:admin", error="insufficient_scope"`,
      ),
      challenge,
    );
    assert.match(challenge, /error_description="This operation needs the scopes mcp:tools mcp:admin/);
    const wide = await as.mintToken({ clientId: 'agent', resource: weft.url, scope: 'mcp:tools mcp:admin' });
    assert.equal((await initializeRequest(weft.url, bearer(wide.accessToken))).status, 200);
    // The narrow token stays refused: it was cached as verified, not as sufficient.
    assert.equal((await initializeRequest(weft.url, bearer(narrow.accessToken))).status, 403);
  });

  it('insufficientScope builds the same refusal for the scopes an operation names', () => {
    const hook = oauthResourceServer({ issuer: as.issuer, audience: 'https://mcp.example.com/mcp' });
    const refusal = hook.insufficientScope(['files:write'], { headers: {}, url: '/mcp' } as IncomingMessage);
    assert.equal(refusal.status, 403);
    assert.equal(
      refusal.headers?.['www-authenticate'],
      'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="files:write", error="insufficient_scope", error_description="This operation needs the scope files:write; ask the authorization server for a token that grants it"',
    );
  });
});
