/**
 * The principal where there is no HTTP status line: WebSocket (the token checked at the upgrade)
 * and stdio (a fixed principal from `listen({ stdio: { principal } })`).
 * - A call lacking a scope is a JSON-RPC error -32012 whose data names the scopes; lists show only
 *   what the principal may use; ctx.auth is the principal.
 * - WebSocket: a connection whose principal expires is closed with 1008 "token expired"; a token
 *   already expired at the upgrade is refused (401).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { type AuthHook, type McpServer, makePrincipal } from '../../lib/index.js';
import { connectOverStdio, type StdioSession } from '../support/sdk-stdio.js';
import type { Wire } from '../transports/modern-http-peer.js';
import { bindingServer } from './binding-server.js';
import { bearer, PRINCIPALS, tokenAuth } from './token-principals.js';

const STDIO_SERVER = fileURLToPath(new URL('./binding-stdio-server.js', import.meta.url));

/** The token hook, plus `expiring-<ms>`: a principal whose credentials end ms from the upgrade. */
const hook: AuthHook = (request) => {
  const match = /^Bearer expiring-(-?\d+)$/.exec(request.headers.authorization ?? '');
  if (!match) return tokenAuth()(request);
  return {
    principal: makePrincipal({
      subject: 'carol',
      scopes: ['notes:read'],
      expiresAt: Date.now() + Number(match[1]),
    }),
  };
};

interface Peer {
  socket: WebSocket;
  rpc(method: string, params?: Record<string, unknown>): Promise<Wire>;
  closed: Promise<{ code: number; reason: string }>;
}

function open(url: string, token: string): Promise<Peer> {
  const socket = new WebSocket(url, 'mcp', { headers: bearer(token) });
  const waiting = new Map<number, (message: Wire) => void>();
  let id = 0;
  socket.on('message', (data) => {
    const message = JSON.parse(String(data));
    if ('id' in message) waiting.get(message.id)?.(message);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.once('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
  const rpc = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<Wire>((resolve) => {
      const mine = ++id;
      waiting.set(mine, resolve);
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: mine, method, params }));
    });
  return new Promise((resolve, reject) => {
    socket.once('open', async () => {
      await rpc('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'ws-peer', version: '1' },
      });
      socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      resolve({ socket, rpc, closed });
    });
    socket.once('unexpected-response', (_request, response) =>
      reject(new Error(`HTTP ${response.statusCode}`)),
    );
    socket.once('error', reject);
  });
}

describe('WebSocket: the principal of the upgrade', () => {
  let server: McpServer;
  let url: string;
  before(async () => {
    server = bindingServer();
    await server.listen({ ws: { port: 0, auth: hook, heartbeatMs: 0 }, handleSignals: false });
    url = `ws://127.0.0.1:${server.addresses.ws!.port}`;
  });
  after(() => server.close());

  it('refuses a call lacking a scope with -32012 naming it, and lists only what the caller may use', async () => {
    const peer = await open(url, 'alice-readonly');
    try {
      const refused = await peer.rpc('tools/call', { name: 'write_note', arguments: {} });
      assert.equal(refused.error?.code, -32012, JSON.stringify(refused));
      assert.deepEqual(refused.error.data, { requiredScopes: ['notes:write'] });
      assert.match(refused.error.message, /notes:write/);
      const names = (await peer.rpc('tools/list')).result.tools.map((tool: { name: string }) => tool.name);
      assert.ok(
        names.includes('read_note') && !names.includes('write_note') && !names.includes('admin_only'),
      );
      const read = await peer.rpc('resources/read', { uri: 'notes://admin' });
      assert.deepEqual(read.error?.data, { requiredScopes: ['admin'] });
      const subscribe = await peer.rpc('resources/subscribe', { uri: 'notes://by-id/3' });
      assert.deepEqual(subscribe.error?.data, { requiredScopes: ['notes:write'] });
      const whoami = await peer.rpc('tools/call', { name: 'whoami_thread', arguments: {} });
      const saw = JSON.parse(whoami.result.content[0].text);
      assert.deepEqual(saw.auth, JSON.parse(JSON.stringify(PRINCIPALS['alice-readonly'])));
    } finally {
      peer.socket.close();
    }
  });

  it('completes only for a prompt or template whose scopes the caller holds', async () => {
    const peer = await open(url, 'alice-readonly');
    try {
      const template = { type: 'ref/resource', uri: 'notes://by-id/{id}' };
      const refused = await peer.rpc('completion/complete', {
        ref: template,
        argument: { name: 'id', value: '' },
      });
      assert.equal(refused.error?.code, -32012, JSON.stringify(refused));
      assert.deepEqual(refused.error.data, { requiredScopes: ['notes:write'] });
      const prompt = await peer.rpc('completion/complete', {
        ref: { type: 'ref/prompt', name: 'admin_prompt' },
        argument: { name: 'topic', value: 's' },
      });
      assert.deepEqual(prompt.error?.data, { requiredScopes: ['admin'] }, JSON.stringify(prompt));
    } finally {
      peer.socket.close();
    }
    const writer = await open(url, 'alice-token');
    try {
      const answered = await writer.rpc('completion/complete', {
        ref: { type: 'ref/resource', uri: 'notes://by-id/{id}' },
        argument: { name: 'id', value: '' },
      });
      assert.deepEqual(answered.result?.completion.values, ['7', '8'], JSON.stringify(answered));
    } finally {
      writer.socket.close();
    }
  });

  it('closes the connection with 1008 "token expired" once its principal expires, cancelling its calls', async () => {
    const peer = await open(url, 'expiring-1500');
    const opened = Date.now();
    assert.equal((await peer.rpc('ping')).result !== undefined, true);
    const running = peer.rpc('tools/call', { name: 'long_task', arguments: {} });
    const closed = await peer.closed;
    const after = Date.now() - opened;
    assert.deepEqual(closed, { code: 1008, reason: 'token expired' });
    assert.ok(after >= 1_000 && after < 8_000, `closed ${after} ms after opening`);
    const answered = await Promise.race([
      running,
      new Promise((resolve) => setTimeout(() => resolve('none'), 200)),
    ]);
    assert.equal(answered, 'none', 'no answer after the close');
    const deadline = Date.now() + 5_000;
    while (server.stats.inFlight > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(server.stats.inFlight, 0, 'the call was cancelled with the connection');
  });

  it('refuses an upgrade whose token has already expired', async () => {
    await assert.rejects(open(url, 'expiring--10'), /HTTP 401/);
  });
});

describe('stdio: a fixed principal', () => {
  let session: StdioSession;
  before(async () => {
    session = await connectOverStdio(STDIO_SERVER);
  });
  after(() => session.close());

  it('is ctx.auth, and its scopes are checked: -32012 naming the scope, lists filtered', async () => {
    const whoami = (await session.client.callTool({ name: 'whoami_process', arguments: {} })) as {
      content: { text: string }[];
    };
    const saw = JSON.parse(whoami.content[0]!.text);
    assert.equal(saw.auth.subject, 'local-user');
    assert.deepEqual(saw.auth.scopes, ['notes:read']);
    assert.equal(saw.frozen, true);
    await assert.rejects(
      session.client.callTool({ name: 'write_note', arguments: {} }),
      (error: Error & { code?: number; data?: unknown }) => {
        assert.equal(error.code, -32012);
        assert.deepEqual(error.data, { requiredScopes: ['notes:write'] });
        return true;
      },
    );
    const names = (await session.client.listTools()).tools.map((tool) => tool.name);
    assert.ok(names.includes('read_note') && !names.includes('write_note'));
  });
});
