/**
 * Streamable HTTP at the HTTP level: session minting, ending and expiry, DNS-rebinding refusal,
 * protocol-version and body-size checks, 202 for notifications, and the mountable handler with a
 * bearer-token hook.
 */
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { bearerAuth, McpServer } from '../../lib/index.js';
import { HttpPeer } from './http-peer.js';

function echoServer(): McpServer {
  return new McpServer({ name: 'http-test', version: '1.0.0' }).tool({
    name: 'echo',
    description: 'Returns its text',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    handler: ({ text }) => text,
  });
}

const listTools = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

function rawPost(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (incoming) => {
        let text = '';
        incoming.on('data', (chunk) => {
          text += chunk;
        });
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body: text }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(JSON.stringify(body));
  });
}

describe('Streamable HTTP sessions and safety checks', () => {
  let server: McpServer;
  let url: string;
  before(async () => {
    server = echoServer();
    await server.listen({ http: { port: 0, sessionIdleMs: 300, maxBodyBytes: 4096 }, handleSignals: false });
    url = `http://127.0.0.1:${server.addresses.http!.port}/mcp`;
  });
  after(() => server.close());

  it('mints a session at initialize and answers requests that carry it', async () => {
    const peer = new HttpPeer(url);
    const init = await peer.initialize();
    assert.equal(init.status, 200);
    assert.match(peer.sessionId ?? '', /^[0-9a-f-]{36}$/);
    const response = await peer.post(listTools);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.deepEqual(
      ((await response.json()) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name),
      ['echo'],
    );
  });

  it('refuses a request without a session (400) or with an unknown one (404)', async () => {
    const peer = new HttpPeer(url);
    assert.equal((await peer.post(listTools)).status, 400);
    peer.sessionId = 'not-a-session';
    assert.equal((await peer.post(listTools)).status, 404);
  });

  it('ends a session on DELETE: later requests get 404', async () => {
    const peer = new HttpPeer(url);
    await peer.initialize();
    assert.equal((await peer.delete()).status, 200);
    assert.equal((await peer.post(listTools)).status, 404);
    assert.equal((await peer.delete()).status, 404);
  });

  it('expires a session left idle longer than sessionIdleMs', async () => {
    const peer = new HttpPeer(url);
    await peer.initialize();
    assert.equal((await peer.post(listTools)).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.equal((await peer.post(listTools)).status, 404);
  });

  it('refuses a non-local Host or Origin with 403 (DNS rebinding) and accepts local ones', async () => {
    const peer = new HttpPeer(url);
    await peer.initialize();
    // fetch will not send a forged Host header; node:http will, as a rebinding browser would.
    const rebound = await rawPost(
      url,
      { host: 'evil.example.com', 'mcp-session-id': peer.sessionId! },
      listTools,
    );
    assert.equal(rebound.status, 403);
    assert.match(rebound.body, /DNS rebinding/);
    assert.equal((await peer.post(listTools, { origin: 'http://evil.example.com' })).status, 403);
    assert.equal((await peer.post(listTools, { origin: 'null' })).status, 403);
    const local = await peer.post(listTools, { origin: `http://localhost:${new URL(url).port}` });
    assert.equal(local.status, 200);
  });

  it('reads a missing MCP-Protocol-Version as 2025-03-26 and refuses an unsupported one with 400', async () => {
    const peer = new HttpPeer(url);
    await peer.initialize();
    assert.equal((await peer.post(listTools)).status, 200);
    assert.equal((await peer.post(listTools, { 'mcp-protocol-version': '2025-06-18' })).status, 200);
    const refused = await peer.post(listTools, { 'mcp-protocol-version': '1999-01-01' });
    assert.equal(refused.status, 400);
    assert.match(((await refused.json()) as { error: { message: string } }).error.message, /2025-11-25/);
  });

  it('answers a notification with 202, a body over the limit with 413, and bad JSON with 400', async () => {
    const peer = new HttpPeer(url);
    await peer.initialize();
    const accepted = await peer.post({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
    assert.equal(accepted.status, 202);
    assert.equal(await accepted.text(), '');
    const big = {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x'.repeat(8_000) } },
    };
    assert.equal((await peer.post(big)).status, 413);
    const garbled = await peer.post('{"jsonrpc": "2.0", "id": 3,');
    assert.equal(garbled.status, 400);
    assert.equal(((await garbled.json()) as { error: { code: number } }).error.code, -32700);
  });

  it('answers other methods with 405 and requests outside /mcp with 404', async () => {
    assert.equal((await fetch(url, { method: 'PUT' })).status, 405);
    assert.equal((await fetch(url.replace('/mcp', '/other'))).status, 404);
  });
});

describe('the session cap', () => {
  it('refuses an initialize beyond maxSessions with 503, and accepts again once one ends', async () => {
    const server = echoServer();
    await server.listen({ http: { port: 0, maxSessions: 1 }, handleSignals: false });
    const url = `http://127.0.0.1:${server.addresses.http!.port}/mcp`;
    const first = new HttpPeer(url);
    await first.initialize();
    // In use: a session that made no request since initialize would be evicted to make room
    // (test/security/legacy-sessions.test.ts), so this one makes one.
    await (await first.post({ jsonrpc: '2.0', id: 1, method: 'ping' })).text();
    const second = new HttpPeer(url);
    assert.equal((await second.initialize()).status, 503);
    await first.delete();
    assert.equal((await new HttpPeer(url).initialize()).status, 200);
    await server.close();
  });
});

describe('the mountable handler', () => {
  let server: McpServer;
  let http: Server;
  let url: string;
  before(async () => {
    server = echoServer();
    const mcp = server.handler({ auth: bearerAuth((token) => token === 'let-me-in') });
    http = createServer((request, response) =>
      mcp(request, response, () =>
        response.writeHead(200, { 'content-type': 'text/plain' }).end('my own route'),
      ),
    );
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });
  after(async () => {
    await server.close();
    http.close();
  });

  it('refuses a request without a valid bearer token with 401 and a WWW-Authenticate challenge', async () => {
    const peer = new HttpPeer(`${url}/mcp`);
    const missing = await peer.post({ jsonrpc: '2.0', id: 0, method: 'ping' });
    assert.equal(missing.status, 401);
    assert.match(missing.headers.get('www-authenticate') ?? '', /^Bearer/);
    const wrong = await peer.post(
      { jsonrpc: '2.0', id: 0, method: 'ping' },
      { authorization: 'Bearer nope' },
    );
    assert.equal(wrong.status, 401);
  });

  it('serves MCP with a valid token and passes other paths to the host application', async () => {
    const peer = new HttpPeer(`${url}/mcp`);
    const init = await peer.post(
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      },
      { authorization: 'Bearer let-me-in' },
    );
    assert.equal(init.status, 200);
    assert.ok(init.headers.get('mcp-session-id'));
    assert.equal(await (await fetch(`${url}/health`)).text(), 'my own route');
  });
});
