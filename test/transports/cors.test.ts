/**
 * CORS on Streamable HTTP, at the wire: preflights from an allowed origin are answered with what
 * may be sent (the MCP headers, any Mcp-Param-*), everything else is refused, and answers to an
 * allowed origin say who may read them and which MCP headers a page may see. Without the option
 * nothing changes: a foreign origin stays refused by the DNS-rebinding guard.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { McpServer } from '../../lib/index.js';

const APP_ORIGIN = 'https://app.example';

/**
 * The endpoint mounted on a server of the test's own (`server.handler`), not `listen`: no pool
 * thread is warmed up, so closing at once never terminates a thread mid-start (Node 20 can abort then).
 */
async function serve(options: Record<string, unknown>): Promise<{ server: McpServer; url: string }> {
  const mcp = new McpServer({ name: 'cors', version: '1.0.0', pool: { maxThreads: 1 } }).tool({
    name: 'echo',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    handler: ({ text }) => String(text),
  });
  const http = createServer(mcp.handler(options));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
  const close = mcp.close.bind(mcp);
  const server = Object.assign(mcp, {
    close: async () => {
      await close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  });
  return { server, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp` };
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

describe('CORS on the HTTP transport', () => {
  let server: McpServer;
  let url: string;
  before(async () => {
    ({ server, url } = await serve({ cors: { origins: [APP_ORIGIN], maxAgeSeconds: 120 } }));
  });
  after(() => server.close());

  const preflight = (origin: string, headers: string, method = 'POST') =>
    fetch(url, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
    });

  it('answers a preflight from an allowed origin with what it may send', async () => {
    const asked = 'content-type, mcp-protocol-version, mcp-method, mcp-name, mcp-param-region, authorization';
    const response = await preflight(APP_ORIGIN, asked);
    assert.equal(response.status, 204);
    assert.equal(response.headers.get('access-control-allow-origin'), APP_ORIGIN);
    assert.equal(response.headers.get('access-control-allow-methods'), 'GET, POST, DELETE');
    assert.equal(response.headers.get('access-control-allow-headers'), asked);
    assert.equal(response.headers.get('access-control-max-age'), '120');
    assert.match(response.headers.get('vary') ?? '', /Origin/);
  });

  it('refuses preflights from other origins, for other methods, or asking for other headers', async () => {
    const refused = [
      await preflight('https://evil.example', 'content-type'),
      await preflight('http://localhost:8080', 'content-type'),
      await preflight(APP_ORIGIN, 'content-type', 'PUT'),
      await preflight(APP_ORIGIN, 'content-type, x-secret'),
      await preflight(APP_ORIGIN, 'mcp-param-'),
    ];
    for (const response of refused) {
      assert.equal(response.status, 403);
      assert.equal(response.headers.get('access-control-allow-origin'), null);
    }
    assert.match(await refused[3]!.text(), /not accepted: x-secret/);
  });

  it('lets an allowed page read the answer and the session id', async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        origin: APP_ORIGIN,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(initialize),
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('access-control-allow-origin'), APP_ORIGIN);
    const exposed = (response.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(', ');
    for (const name of ['mcp-session-id', 'mcp-protocol-version', 'mcp-method', 'mcp-name']) {
      assert.ok(exposed.includes(name), `${name} is exposed`);
    }
    assert.ok(response.headers.get('mcp-session-id'));
    assert.equal(response.headers.get('access-control-allow-credentials'), null);
  });

  it('gives other origins no CORS headers, and still refuses foreign ones', async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        origin: 'https://evil.example',
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify(initialize),
    });
    assert.equal(response.status, 403);
    assert.equal(response.headers.get('access-control-allow-origin'), null);
  });
});

describe('the cors option', () => {
  it('is off by default: a foreign origin is refused and a preflight is not answered', async () => {
    const { server, url } = await serve({});
    try {
      const response = await fetch(url, {
        method: 'OPTIONS',
        headers: { origin: APP_ORIGIN, 'access-control-request-method': 'POST' },
      });
      assert.equal(response.status, 403);
      assert.equal(response.headers.get('access-control-allow-origin'), null);
    } finally {
      await server.close();
    }
  });

  it('sends Allow-Credentials when asked', async () => {
    const { server, url } = await serve({ cors: { origins: [APP_ORIGIN], credentials: true } });
    try {
      const response = await fetch(url, {
        method: 'OPTIONS',
        headers: { origin: APP_ORIGIN, 'access-control-request-method': 'POST' },
      });
      assert.equal(response.status, 204);
      assert.equal(response.headers.get('access-control-allow-credentials'), 'true');
    } finally {
      await server.close();
    }
  });

  it('refuses a malformed option with the right form', async () => {
    const attempts: [unknown, RegExp][] = [
      [{ origins: ['*'] }, /'\*' is not accepted; list each origin/],
      [{ origins: ['https://app.example/'] }, /is not an origin; write scheme:\/\/host\[:port\]/],
      [{ origins: 'https://app.example' }, /cors must be \{ origins:/],
      [{ origins: [], maxAge: 5 }, /unknown option "maxAge"/],
    ];
    const server = new McpServer({ name: 'cors', version: '1.0.0', pool: { maxThreads: 1 } });
    for (const [cors, message] of attempts) {
      assert.throws(() => server.handler({ cors: cors as never }), message);
    }
    await server.close();
  });
});
