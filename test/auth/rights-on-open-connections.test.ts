/**
 * A caller's rights are re-checked for as long as it holds a connection, against oidc-provider:
 * a WebSocket, a legacy GET stream, a legacy POST's stream while its call runs and a 2026-07-28
 * listen stream opened with an opaque token end
 * within `introspection.cacheTtlMs` of its revocation, and opened with a JWT end at its `exp`, each
 * with a reason its client can act on (a WebSocket close code and reason; the GET stream simply
 * ends, and the client's next GET gets the 401 challenge; the listen request answered -32014 with
 * the status a new request would get). A legacy session whose GET stream ended so is no longer
 * busy: it expires when idle. While the token cannot be checked (the endpoint limits weft), a
 * WebSocket holding a token verified before stays open through the stale window, then closes 1013.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import { McpServer, oauthResourceServer } from '../../lib/index.js';
import {
  type AuthorizationServerUnderTest,
  startAuthorizationServer,
} from '../support/authorization-server.js';
import { standIn } from '../support/introspection-stand-in.js';
import { initializeSession } from '../support/legacy-session.js';
import { SseReader } from '../support/sse-reader.js';
import { until } from '../support/until.js';
import { envelope, standardHeaders } from '../transports/modern-http-peer.js';

/** The revocation window under test: an opaque token's verdict is trusted this long. */
const CACHE_TTL_MS = 1_000;
/** How long a JWT lives (whole seconds, as `exp` counts). */
const JWT_TTL_SECONDS = 3;
/** What a check may take beyond its window on a loaded machine. */
const SLACK_MS = 1_500;
const AUDIENCE = 'http://127.0.0.1:9/mcp';

let as: AuthorizationServerUnderTest;
let server: McpServer;
let httpUrl: string;
let wsUrl: string;

before(async () => {
  as = await startAuthorizationServer({
    clients: [
      { clientId: 'opaque', clientSecret: 'opaque-secret', scopes: [], tokenFormat: 'opaque' },
      { clientId: 'jwt', clientSecret: 'jwt-secret', scopes: [], tokenTtlSeconds: JWT_TTL_SECONDS },
      { clientId: 'weft', clientSecret: 'weft-secret', scopes: [] },
    ],
  });
  const auth = oauthResourceServer({
    issuer: as.issuer,
    audience: AUDIENCE,
    introspection: { clientId: 'weft', clientSecret: 'weft-secret', cacheTtlMs: CACHE_TTL_MS },
  });
  server = new McpServer({ name: 'rights', version: '1', pool: { maxThreads: 1 } })
    .tool({
      name: 'echo',
      inputSchema: { type: 'object', properties: {} },
      handler: () => 'echo',
    })
    .tool({
      name: 'linger',
      description: 'Runs until cancelled: its POST stream stays open',
      inputSchema: { type: 'object', properties: {} },
      handler: (_args, ctx) =>
        new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', reject)),
    });
  await server.listen({
    http: { port: 0, auth, sessionIdleMs: 1_000 },
    ws: { port: 0, auth, heartbeatMs: 0 },
    handleSignals: false,
  });
  httpUrl = `http://127.0.0.1:${server.addresses.http!.port}/mcp`;
  wsUrl = `ws://127.0.0.1:${server.addresses.ws!.port}`;
});
after(async () => {
  await server.close();
  await as.stop();
});

/**
 * The two ways rights lapse: an opaque token revoked at the authorization server (the window starts
 * at the revocation), and a JWT reaching its `exp` (the window starts at its expiry).
 */
const LAPSES = [
  {
    name: 'a revoked opaque token',
    async token() {
      return (await as.mintToken({ clientId: 'opaque', resource: AUDIENCE })).accessToken;
    },
    /** Makes the token lapse; resolves when its window starts. */
    async lapse(token: string): Promise<number> {
      await as.revokeToken({ clientId: 'opaque', token });
      return Date.now();
    },
    windowMs: CACHE_TTL_MS,
  },
  {
    name: 'an expired JWT',
    async token() {
      return (await as.mintToken({ clientId: 'jwt', resource: AUDIENCE })).accessToken;
    },
    async lapse(token: string): Promise<number> {
      const { exp } = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
      return exp * 1000;
    },
    windowMs: 0,
  },
] as const;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const legacyHeaders = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

/** Asserts `endedAt` is within the lapse's window (plus slack), and not before the lapse. */
function assertWithinWindow(what: string, lapsedAt: number, endedAt: number, windowMs: number): void {
  const after = endedAt - lapsedAt;
  assert.ok(
    after >= -50 && after <= windowMs + SLACK_MS,
    `${what} ended ${after} ms after the rights lapsed (window ${windowMs} ms)`,
  );
}

/** `promise`, or a failure naming `what` once it has not settled by `deadline` (epoch ms). */
function by<T>(deadline: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: still open ${SLACK_MS} ms after the window ended`)),
      Math.max(0, deadline - Date.now()),
    );
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** A legacy session opened and initialized with `token`: the headers its later requests carry. */
async function legacySession(token: string): Promise<Record<string, string>> {
  const withToken: typeof fetch = (input, init) =>
    fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...bearer(token) } });
  const { status, id } = await initializeSession(httpUrl, withToken);
  assert.equal(status, 200);
  const sessionHeaders = { 'mcp-session-id': id!, 'mcp-protocol-version': '2025-11-25' };
  const initialized = await fetch(httpUrl, {
    method: 'POST',
    headers: { ...legacyHeaders, ...sessionHeaders, ...bearer(token) },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  assert.equal(initialized.status, 202);
  return sessionHeaders;
}

for (const kind of LAPSES) {
  describe(`${kind.name}`, () => {
    it('closes a WebSocket opened with it: 1008 and a reason', async () => {
      const token = await kind.token();
      const socket = new WebSocket(wsUrl, 'mcp', { headers: bearer(token) });
      const closed = new Promise<{ code: number; reason: string; at: number }>((resolve) =>
        socket.once('close', (code, reason) => resolve({ code, reason: String(reason), at: Date.now() })),
      );
      await new Promise((resolve, reject) => {
        socket.once('open', resolve);
        socket.once('error', reject);
      });
      const lapsedAt = await kind.lapse(token);
      const deadline = lapsedAt + kind.windowMs + SLACK_MS;
      const { code, reason, at } = await by(deadline, 'the WebSocket', closed);
      assert.equal(code, 1008, `closed ${code} ${reason}`);
      assert.match(reason, /token (expired|is not active)/);
      assertWithinWindow('the WebSocket', lapsedAt, at, kind.windowMs);
    });

    it('ends a legacy GET stream opened with it, and its session then expires when idle', async () => {
      const token = await kind.token();
      const sessionHeaders = await legacySession(token);
      const sessionsBefore = server.stats.tables.sessions;
      const get = await fetch(httpUrl, {
        headers: { accept: 'text/event-stream', ...sessionHeaders, ...bearer(token) },
      });
      assert.equal(get.status, 200);
      const stream = new SseReader(get.body!);
      const lapsedAt = await kind.lapse(token);
      const deadline = lapsedAt + kind.windowMs + SLACK_MS;
      const last = await by(deadline, 'the GET stream', stream.next());
      assert.equal(last, undefined, 'nothing delivered, then the stream ends');
      assertWithinWindow('the GET stream', lapsedAt, Date.now(), kind.windowMs);
      // No longer busy with a stream: idle, it expires after sessionIdleMs.
      await until(
        async () => server.stats.tables.sessions,
        (sessions) => sessions < sessionsBefore,
        5_000,
      );
    });

    it("ends a legacy POST's SSE stream opened with it while its call runs", async () => {
      const token = await kind.token();
      const sessionHeaders = await legacySession(token);
      const post = await fetch(httpUrl, {
        method: 'POST',
        headers: { ...legacyHeaders, ...sessionHeaders, ...bearer(token) },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'linger', arguments: {} },
        }),
      });
      assert.equal(post.status, 200);
      assert.match(post.headers.get('content-type') ?? '', /^text\/event-stream/);
      const stream = new SseReader(post.body!);
      const lapsedAt = await kind.lapse(token);
      const deadline = lapsedAt + kind.windowMs + SLACK_MS;
      const last = await by(deadline, "the POST's stream", stream.next());
      assert.equal(last, undefined, 'nothing delivered, then the stream ends');
      assertWithinWindow("the POST's stream", lapsedAt, Date.now(), kind.windowMs);
    });

    it('answers a listen stream opened with it with -32014, then ends it', async () => {
      const token = await kind.token();
      const params = { notifications: { toolsListChanged: true }, _meta: envelope() };
      const response = await fetch(httpUrl, {
        method: 'POST',
        headers: { ...legacyHeaders, ...standardHeaders('subscriptions/listen', params), ...bearer(token) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'listen-1', method: 'subscriptions/listen', params }),
      });
      assert.equal(response.status, 200);
      const stream = new SseReader(response.body!);
      assert.equal((await stream.next()).method, 'notifications/subscriptions/acknowledged');
      const lapsedAt = await kind.lapse(token);
      const answer = await by(lapsedAt + kind.windowMs + SLACK_MS, 'the listen stream', stream.next());
      assertWithinWindow('the listen stream', lapsedAt, Date.now(), kind.windowMs);
      assert.equal(answer?.id, 'listen-1', JSON.stringify(answer));
      assert.equal(answer.error?.code, -32014, JSON.stringify(answer));
      assert.equal(answer.error.data?.status, 401);
      assert.match(answer.error.message, /token/);
      assert.equal(await stream.next(), undefined, 'the stream ends');
      await until(
        async () => server.stats.tables.listens,
        (listens) => listens === 0,
        2_000,
      );
    });
  });
}

describe('a token that cannot be checked any more', () => {
  it('keeps a WebSocket open through its stale window, then closes it 1013 (try again later)', async () => {
    // The first check (the upgrade's) is answered; from then on the endpoint limits weft.
    let asked = 0;
    const endpoint = await standIn(async (token) =>
      ++asked > 1
        ? { status: 429, body: { error: 'slow_down' }, headers: { 'retry-after': '30' } }
        : {
            status: 200,
            body: { active: true, aud: AUDIENCE, sub: token, exp: Math.floor(Date.now() / 1000) + 120 },
          },
    );
    const auth = oauthResourceServer({
      issuer: 'https://as.example',
      audience: AUDIENCE,
      introspection: {
        clientId: 'weft',
        clientSecret: 'weft-secret',
        endpoint: endpoint.url,
        cacheTtlMs: 300,
        staleWindowMs: 1_500,
      },
    });
    const stale = new McpServer({ name: 'stale', version: '1', pool: { maxThreads: 1 } });
    await stale.listen({ ws: { port: 0, auth, heartbeatMs: 0 }, handleSignals: false });
    try {
      const before = Date.now();
      const socket = new WebSocket(`ws://127.0.0.1:${stale.addresses.ws!.port}`, 'mcp', {
        headers: bearer('real-ws'),
      });
      const closed = new Promise<{ code: number; reason: string; at: number }>((resolve) =>
        socket.once('close', (code, reason) => resolve({ code, reason: String(reason), at: Date.now() })),
      );
      await new Promise((resolve, reject) => {
        socket.once('open', resolve);
        socket.once('error', reject);
      });
      const verifiedAt = Date.now();
      const early = await Promise.race([
        closed,
        new Promise((resolve) => setTimeout(() => resolve('open'), 300 + 1_000)),
      ]);
      assert.equal(early, 'open', 'served on its earlier verdict within the stale window');
      const { code, reason, at } = await by(verifiedAt + 300 + 1_500 + SLACK_MS, 'the WebSocket', closed);
      assert.equal(code, 1013, `closed ${code} ${reason}`);
      assert.match(reason, /could not check the token|not answering/);
      // Verified after `before` and before `verifiedAt`: its stale window ends between them + 1.8 s.
      assert.ok(at - before >= 300 + 1_500 - 50, `closed ${at - before} ms after the upgrade began`);
    } finally {
      await stale.close();
      await endpoint.close();
    }
  });
});
