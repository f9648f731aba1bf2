/**
 * Item 3 of the hardening issue: a WebSocket has no CORS, so its upgrade accepts a browser Origin
 * only when it is listed in `allowedOrigins`, local ones included. A page on http://localhost:5173
 * (another dev server, or an XSS in any local app) could open ws://127.0.0.1:PORT and call tools.
 * A client without an Origin header is not a browser page, and still connects.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { McpServer } from '../../lib/index.js';
import { upgradeStatus } from '../support/websocket-upgrade.js';

describe('security: WebSocket origins', () => {
  const LISTED = 'http://localhost:3000';
  let server: McpServer;
  let open: McpServer;
  let url: string;
  let openUrl: string;
  before(async () => {
    server = new McpServer({ name: 'ws-origins', version: '1' });
    await server.listen({ ws: { port: 0, allowedOrigins: [LISTED] }, handleSignals: false });
    url = `ws://127.0.0.1:${server.addresses.ws!.port}`;
    open = new McpServer({ name: 'ws-origins-any', version: '1' });
    await open.listen({ ws: { port: 0, allowedOrigins: 'any' }, handleSignals: false });
    openUrl = `ws://127.0.0.1:${open.addresses.ws!.port}`;
  });
  after(async () => {
    await server.close();
    await open.close();
  });

  for (const origin of ['http://localhost:5173', 'http://127.0.0.1:8080', 'http://[::1]:3000', 'null']) {
    it(`a page on ${origin} (not listed) cannot open the WebSocket: 403`, async () => {
      assert.equal(await upgradeStatus(url, { origin }), 403);
    });
  }

  it('a listed origin opens it', async () => {
    assert.equal(await upgradeStatus(url, { origin: LISTED }), 101);
  });

  it('a client without an Origin header (not a browser page) opens it', async () => {
    assert.equal(await upgradeStatus(url), 101);
  });

  it("allowedOrigins: 'any' still turns the check off", async () => {
    assert.equal(await upgradeStatus(openUrl, { origin: 'http://localhost:5173' }), 101);
  });

  it('HTTP keeps its rule: a local page origin passes the guard, CORS decides what it may read', async () => {
    const http = new McpServer({ name: 'http-origins', version: '1' });
    await http.listen({ http: { port: 0 }, handleSignals: false });
    try {
      const response = await fetch(`http://127.0.0.1:${http.addresses.http!.port}/mcp`, {
        method: 'POST',
        headers: {
          origin: 'http://localhost:5173',
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      assert.notEqual(response.status, 403);
      assert.equal(response.headers.get('access-control-allow-origin'), null);
    } finally {
      await http.close();
    }
  });
});
