/**
 * Made-up opaque tokens cannot starve token introspection for real users: 300 workers on one
 * address send a new bogus token after each answer, while real users on other addresses present
 * tokens verified before (they go through the lane of known tokens) and fresh ones (their
 * addresses get their turn in the lane shared by source). Against an endpoint that rate-limits weft
 * (429, Retry-After 30), the flood's address is held to its own budget, so it cannot spend weft's
 * allowance and shut everyone out. And while the endpoint cannot be asked, a token verified before
 * keeps working for its stale window, never past its `exp`, while unknown tokens are refused.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { FairGate } from '../../lib/auth/fair-gate.js';
import { oauthResourceServer } from '../../lib/index.js';
import { standIn } from '../support/introspection-stand-in.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ISSUER = 'https://as.example';
const AUDIENCE = 'http://127.0.0.1:9/mcp';
const CREDENTIALS = { clientId: 'weft', clientSecret: 'weft-secret' };
/** A request as the hook sees it, from `address`, for the fixed audience above. */
const requestWith = (token: string, address: string) =>
  ({
    headers: { host: '127.0.0.1:9', authorization: `Bearer ${token}` },
    url: '/mcp',
    socket: { remoteAddress: address },
  }) as unknown as IncomingMessage;
const statusOf = (verdict: unknown) =>
  typeof verdict === 'object' && verdict !== null && 'status' in verdict
    ? (verdict as { status: number }).status
    : 200;
/** The address of real user `i` (the flood comes from 127.0.0.1). */
const userAddress = (i: number) => `127.0.0.${2 + i}`;
/** What the stand-in answers for a token: `real-*` tokens are active for AUDIENCE. */
const activeFor = (token: string, exp = Math.floor(Date.now() / 1000) + 120) =>
  token.startsWith('real-') ? { active: true, aud: AUDIENCE, exp, sub: token, scope: '' } : { active: false };

type Hook = ReturnType<typeof oauthResourceServer>;

/**
 * 300 workers on 127.0.0.1, each presenting a new made-up token as soon as the last one is
 * answered (one event-loop turn apart, as a network round trip would be), until `stop`.
 */
function flood(hook: Hook) {
  let running = true;
  let sent = 0;
  const workers = Array.from({ length: 300 }, async (_, worker) => {
    while (running) {
      sent++;
      await hook(requestWith(`bogus-${worker}-${sent}`, '127.0.0.1'));
      await nextTurn();
    }
  });
  return {
    get sent() {
      return sent;
    },
    async stop() {
      running = false;
      await Promise.all(workers);
    },
  };
}

/** Each user presents its token once, all at once; their statuses, in order. */
async function usersPresent(hook: Hook, tokens: string[]): Promise<number[]> {
  return Promise.all(
    tokens.map(async (token, i) => statusOf(await hook(requestWith(token, userAddress(i))))),
  );
}

describe('a flood of made-up tokens from one address', () => {
  it('leaves real users served: verified tokens in their own lane, fresh ones in their turn', async () => {
    // A real authorization server takes a few ms per answer: a queue forms behind the flood.
    const endpoint = await standIn(async (token) => {
      await sleep(20);
      return { status: 200, body: activeFor(token) };
    });
    try {
      const hook = oauthResourceServer({
        issuer: ISSUER,
        audience: AUDIENCE,
        introspection: { ...CREDENTIALS, endpoint: endpoint.url, cacheTtlMs: 300 },
      });
      const verified = Array.from({ length: 30 }, (_, i) => `real-verified-${i}`);
      assert.deepEqual(
        await usersPresent(hook, verified),
        verified.map(() => 200),
      );
      const bogus = flood(hook);
      await sleep(500);
      // Past cacheTtlMs: each verified token is checked again, in the lane of known tokens.
      const again = await usersPresent(hook, verified);
      const fresh = await usersPresent(
        hook,
        verified.map((_, i) => `real-fresh-${i}`),
      );
      await bogus.stop();
      assert.deepEqual(
        again,
        verified.map(() => 200),
        'every token verified before is served',
      );
      // The flood is one address of 31: the users' fresh tokens are not refused for it.
      assert.deepEqual(
        fresh,
        verified.map(() => 200),
        'every fresh token of a real user is served',
      );
      assert.ok(bogus.sent > 300, `the flood kept going (${bogus.sent} made-up tokens sent)`);
    } finally {
      await endpoint.close();
    }
  });

  it('against an endpoint that answers 429 Retry-After 30 past 60 a second, cannot shut others out', async () => {
    let windowStart = Date.now();
    let inWindow = 0;
    let blockedUntil = 0;
    let limited = 0;
    const endpoint = await standIn(async (token) => {
      const now = Date.now();
      if (now - windowStart >= 1000) {
        windowStart = now;
        inWindow = 0;
      }
      if (now < blockedUntil || ++inWindow > 60) {
        blockedUntil = Math.max(blockedUntil, now + 30_000);
        limited++;
        return { status: 429, body: { error: 'slow_down' }, headers: { 'retry-after': '30' } };
      }
      return { status: 200, body: activeFor(token) };
    });
    try {
      const hook = oauthResourceServer({
        issuer: ISSUER,
        audience: AUDIENCE,
        introspection: { ...CREDENTIALS, endpoint: endpoint.url },
      });
      const bogus = flood(hook);
      await sleep(500);
      const fresh = await usersPresent(
        hook,
        Array.from({ length: 12 }, (_, i) => `real-fresh-${i}`),
      );
      await sleep(1_000);
      const later = await usersPresent(
        hook,
        Array.from({ length: 12 }, (_, i) => `real-later-${i}`),
      );
      await bogus.stop();
      assert.deepEqual(
        [...fresh, ...later],
        [...fresh, ...later].map(() => 200),
        'every real user is served',
      );
      assert.equal(limited, 0, 'the flood never made the endpoint limit weft');
      assert.ok(bogus.sent > 300, `the flood kept going (${bogus.sent} made-up tokens sent)`);
    } finally {
      await endpoint.close();
    }
  });
});

describe('the stale window', () => {
  it('while the endpoint limits weft, a token verified before works until its window or exp ends; unknown ones do not', async () => {
    let limiting = false;
    const shortExp = Math.floor(Date.now() / 1000) + 2;
    const endpoint = await standIn(async (token) =>
      limiting
        ? { status: 429, body: { error: 'slow_down' }, headers: { 'retry-after': '30' } }
        : {
            status: 200,
            body: activeFor(token, token === 'real-short' ? shortExp : undefined),
          },
    );
    try {
      const hook = oauthResourceServer({
        issuer: ISSUER,
        audience: AUDIENCE,
        introspection: { ...CREDENTIALS, endpoint: endpoint.url, cacheTtlMs: 200, staleWindowMs: 2_500 },
      });
      // real-long is verified between these two moments: its windows end between them + 200 ms, + 2.7 s.
      const verifiedAt = Date.now();
      assert.equal(statusOf(await hook(requestWith('real-long', '127.0.0.2'))), 200);
      const verifiedBy = Date.now();
      assert.equal(statusOf(await hook(requestWith('real-short', '127.0.0.2'))), 200);
      limiting = true;
      assert.equal(statusOf(await hook(requestWith('bogus-opens-the-breaker', '127.0.0.1'))), 503);
      await sleep(Math.max(0, verifiedBy + 200 + 50 - Date.now()));
      assert.equal(statusOf(await hook(requestWith('real-long', '127.0.0.2'))), 200, 'stale, still served');
      assert.equal(
        statusOf(await hook(requestWith('real-new', '127.0.0.2'))),
        503,
        'never seen valid: refused',
      );
      // real-short's exp comes before its stale window ends: it is not served past it.
      await sleep(Math.max(0, shortExp * 1000 - Date.now() + 50));
      assert.equal(statusOf(await hook(requestWith('real-short', '127.0.0.2'))), 503, 'not past its exp');
      assert.ok(Date.now() < verifiedAt + 200 + 2_500, 'still within the stale window');
      assert.equal(
        statusOf(await hook(requestWith('real-long', '127.0.0.2'))),
        200,
        'real-long still stale-served',
      );
      await sleep(Math.max(0, verifiedBy + 200 + 2_500 - Date.now() + 50));
      assert.equal(
        statusOf(await hook(requestWith('real-long', '127.0.0.2'))),
        503,
        'its stale window is over',
      );
      assert.equal(endpoint.count, 3, 'nothing asked while the breaker is open');
    } finally {
      await endpoint.close();
    }
  });
});

describe('the lane shared by source', () => {
  it('serves the sources in turn, and a full queue makes room for a smaller holder', async () => {
    const gate = new FairGate(1, 4);
    const order: string[] = [];
    let release!: () => void;
    const first = gate.run('a', () => new Promise<void>((resolve) => (release = resolve)));
    const waiting = [
      gate.run('a', async () => order.push('a1')),
      gate.run('a', async () => order.push('a2')),
      gate.run('a', async () => order.push('a3')),
      gate.run('b', async () => order.push('b1')),
    ].map((run) =>
      run.then(
        () => 'ran',
        () => 'refused',
      ),
    );
    // The queue is full (a holds 3, b 1): c takes a's latest place; a's newcomer is refused.
    const c = gate.run('c', async () => order.push('c1')).then(() => 'ran');
    const refusedA = await gate
      .run('a', async () => order.push('a4'))
      .then(
        () => 'ran',
        () => 'refused',
      );
    assert.equal(refusedA, 'refused');
    release();
    await first;
    assert.deepEqual(await Promise.all(waiting), ['ran', 'ran', 'refused', 'ran']);
    await c;
    assert.deepEqual(order, ['a1', 'b1', 'c1', 'a2'], 'a line per source, served in turn');
  });
});
