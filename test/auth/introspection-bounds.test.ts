/**
 * What opaque tokens can make weft cost, and how long a revoked one lives, against oidc-provider
 * (and, for an endpoint that limits weft, a stand-in that answers 429):
 * - a revoked token is refused once `introspection.cacheTtlMs` has passed, not at its `exp`;
 * - the same bad token sent 400 times at once is one introspection, and again later is none;
 * - distinct tokens at once are introspected at most `maxConcurrent` at a time, the rest queued or
 *   told to retry;
 * - an endpoint answering 429 opens the breaker: clients get 503 with Retry-After (not 500), the
 *   endpoint is not asked again until the cool-down, and the first success after it closes it.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { RateLimitedLog } from '../../lib/auth/rate-limited-log.js';
import { oauthResourceServer } from '../../lib/index.js';
import {
  type AuthorizationServerUnderTest,
  startAuthorizationServer,
} from '../support/authorization-server.js';
import { standIn } from '../support/introspection-stand-in.js';
import { initializeRequest, serveProtected } from './protected-server.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const AUDIENCE = 'http://127.0.0.1:9/mcp';
/** A request as the hook sees it, for the fixed audience above. */
const requestWith = (token: string) =>
  ({
    headers: { host: '127.0.0.1:9', authorization: `Bearer ${token}` },
    url: '/mcp',
    socket: {},
  }) as IncomingMessage;
const statusOf = (verdict: unknown) =>
  typeof verdict === 'object' && verdict !== null && 'status' in verdict
    ? (verdict as { status: number }).status
    : 200;

let as: AuthorizationServerUnderTest;
before(async () => {
  as = await startAuthorizationServer({
    clients: [
      {
        clientId: 'opaque',
        clientSecret: 'opaque-secret',
        scopes: ['mcp:tools'],
        tokenFormat: 'opaque',
        tokenTtlSeconds: 120,
      },
      { clientId: 'weft', clientSecret: 'weft-secret', scopes: [] },
    ],
  });
});
after(() => as.stop());

describe('the revocation window', () => {
  it('a revoked token is refused once introspection.cacheTtlMs has passed', async () => {
    const weft = await serveProtected({
      issuer: as.issuer,
      introspection: { clientId: 'weft', clientSecret: 'weft-secret', cacheTtlMs: 400 },
    });
    try {
      const { accessToken } = await as.mintToken({ clientId: 'opaque', resource: weft.url });
      const bearer = { authorization: `Bearer ${accessToken}` };
      assert.equal((await initializeRequest(weft.url, bearer)).status, 200);
      await as.revokeToken({ clientId: 'opaque', token: accessToken });
      const start = Date.now();
      let status = 200;
      while (status === 200 && Date.now() - start < 5_000) {
        await sleep(50);
        status = (await initializeRequest(weft.url, bearer)).status;
      }
      const after = Date.now() - start;
      assert.equal(status, 401, 'refused after revocation');
      assert.ok(
        after <= 400 + 300,
        `refused ${after} ms after revocation, within cacheTtlMs (400) and a poll`,
      );
    } finally {
      await weft.close();
    }
  });

  it('refuses a cacheTtlMs beyond a minute, saying why', () => {
    assert.throws(
      () =>
        oauthResourceServer({
          issuer: as.issuer,
          introspection: { clientId: 'weft', clientSecret: 'weft-secret', cacheTtlMs: 3_600_000 },
        }),
      /introspection.cacheTtlMs is at most 60000 ms/,
    );
  });
});

describe('what bad tokens cost the authorization server', () => {
  it('the same bad token 400 times at once is one introspection; again a moment later, none', async () => {
    const hook = oauthResourceServer({
      issuer: as.issuer,
      audience: AUDIENCE,
      introspection: { clientId: 'weft', clientSecret: 'weft-secret' },
    });
    const before = as.introspections;
    const verdicts = await Promise.all(
      Array.from({ length: 400 }, () => hook(requestWith('not-a-token-this-server-issued'))),
    );
    assert.ok(verdicts.every((verdict) => statusOf(verdict) === 401));
    assert.equal(as.introspections - before, 1, 'one introspection for 400 presentations');
    for (let round = 0; round < 50; round++) {
      assert.equal(statusOf(await hook(requestWith('not-a-token-this-server-issued'))), 401);
    }
    assert.equal(as.introspections - before, 1, 'remembered as refused (negativeCacheTtlMs)');
    assert.equal(hook.stats.introspection?.refusedTokens, 1);
  });

  it("server.stats shows the hook's tables: a token verified and one refused are counted", async () => {
    const weft = await serveProtected({
      issuer: as.issuer,
      introspection: { clientId: 'weft', clientSecret: 'weft-secret' },
    });
    try {
      const { accessToken } = await as.mintToken({ clientId: 'opaque', resource: weft.url });
      assert.deepEqual(weft.server.stats.tables.auth, {
        verifiedTokens: 0,
        refusedTokens: 0,
        verifying: 0,
        verifyQueued: 0,
      });
      assert.equal(
        (await initializeRequest(weft.url, { authorization: `Bearer ${accessToken}` })).status,
        200,
      );
      assert.equal(
        (await initializeRequest(weft.url, { authorization: 'Bearer not-issued-here' })).status,
        401,
      );
      assert.deepEqual(weft.server.stats.tables.auth, {
        verifiedTokens: 1,
        refusedTokens: 1,
        verifying: 0,
        verifyQueued: 0,
      });
    } finally {
      await weft.close();
    }
  });

  it('distinct tokens at once: at most maxConcurrent introspections run, the queue is bounded', async () => {
    const endpoint = await standIn(async () => {
      await sleep(100);
      return { status: 200, body: { active: false } };
    });
    try {
      const hook = oauthResourceServer({
        issuer: as.issuer,
        audience: AUDIENCE,
        introspection: {
          clientId: 'weft',
          clientSecret: 'weft-secret',
          endpoint: endpoint.url,
          maxConcurrent: 4,
          maxQueued: 8,
          // The lane's bounds alone: one source's budget (introspection-flood.test.ts) set aside.
          perSourceBurst: 1_000,
        },
      });
      const verdicts = await Promise.all(
        Array.from({ length: 40 }, (_, i) => hook(requestWith(`token-${i}`))),
      );
      const statuses = verdicts.map(statusOf);
      assert.equal(endpoint.peak, 4, 'never more than maxConcurrent at the endpoint at once');
      assert.equal(endpoint.count, 12, 'maxConcurrent + maxQueued asked, the rest refused at once');
      assert.equal(statuses.filter((status) => status === 401).length, 12);
      assert.equal(statuses.filter((status) => status === 503).length, 28);
    } finally {
      await endpoint.close();
    }
  });
});

describe('an endpoint that limits weft (429)', () => {
  it('opens the breaker: 503 with Retry-After, the endpoint left alone, closed again by a success', async () => {
    let limiting = true;
    const endpoint = await standIn(async () =>
      limiting
        ? { status: 429, body: { error: 'slow down' }, headers: { 'retry-after': '1' } }
        : {
            status: 200,
            body: { active: true, aud: 'x', exp: Math.floor(Date.now() / 1000) + 60, sub: 's' },
          },
    );
    const weft = await serveProtected({
      issuer: as.issuer,
      introspection: { clientId: 'weft', clientSecret: 'weft-secret', endpoint: endpoint.url },
    });
    try {
      const first = await initializeRequest(weft.url, { authorization: 'Bearer opaque-1' });
      assert.equal(first.status, 503, 'not 500');
      assert.equal(first.headers.get('retry-after'), '1');
      assert.equal(endpoint.count, 1);
      for (let i = 2; i <= 20; i++) {
        const answer = await initializeRequest(weft.url, { authorization: `Bearer opaque-${i}` });
        assert.equal(answer.status, 503);
        assert.ok(Number(answer.headers.get('retry-after')) >= 1);
      }
      assert.equal(endpoint.count, 1, 'nothing sent while the breaker is open');
      limiting = false;
      await sleep(1_100);
      // The probe: the endpoint answers; the token is for another audience, so 401, and the breaker closes.
      assert.equal((await initializeRequest(weft.url, { authorization: 'Bearer opaque-probe' })).status, 401);
      assert.equal((await initializeRequest(weft.url, { authorization: 'Bearer opaque-next' })).status, 401);
      assert.equal(endpoint.count, 3, 'closed again: each new token is asked about');
    } finally {
      await weft.close();
      await endpoint.close();
    }
  });
});

describe('rate-limited logging', () => {
  it('writes a kind once per interval, then says how many it held back', () => {
    const lines: string[] = [];
    const log = new RateLimitedLog((line) => lines.push(line), 1000);
    for (let i = 0; i < 400; i++) log.log('failed', 'introspection failed', 10_000 + i);
    log.log('overloaded', 'limited', 10_400);
    log.log('failed', 'introspection failed', 11_500);
    assert.deepEqual(lines, [
      'introspection failed',
      'limited',
      'introspection failed (399 more like it in the last 1 s not logged)',
    ]);
  });
});
