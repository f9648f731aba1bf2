/**
 * One caller identity for every bound (transports/caller-identity.ts), worked out at the door. Before
 * it, each 2026-07-28 HTTP request was a caller of its own (`connection:N`), `fairness.key` was not
 * told the peer's address, forwarding headers were never read (behind HAProxy every client was the
 * proxy), and a token without `sub` for client "alice" was the same caller as user "alice".
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { principalKey } from '../../lib/auth/principal.js';
import { principalFromClaims } from '../../lib/auth/token-principal.js';
import { McpServer } from '../../lib/index.js';
import { normaliseAddress } from '../../lib/transports/caller-identity.js';
import { fetchFrom } from '../support/fetch-from.js';
import { openSocket } from '../support/websocket-upgrade.js';
import { envelope } from '../transports/modern-http-peer.js';

const PIN = { mode: { pin: '2026-07-28' } } as const;

/** A server whose `fairness.key` records the default caller key of every call it is asked about. */
async function recordingServer(options: { trustProxy?: string[] } = {}) {
  const seen: (string | undefined)[] = [];
  const server = new McpServer({
    name: 'caller-identity',
    version: '1',
    ...options,
    fairness: {
      key: (request) => {
        seen.push(request.caller);
        return undefined;
      },
    },
  }).tool({ name: 'hello', inputSchema: { type: 'object', properties: {} }, handler: () => 'hello' });
  await server.listen({ http: { port: 0 }, ws: { port: 0 }, handleSignals: false });
  return {
    server,
    seen,
    url: `http://127.0.0.1:${server.addresses.http!.port}/mcp`,
    wsUrl: `ws://127.0.0.1:${server.addresses.ws!.port}`,
  };
}

async function callFromModern(url: string, from: string, headers: Record<string, string> = {}) {
  const fetchImpl = fetchFrom(from);
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: (input, init) => {
      const merged = new Headers(init?.headers);
      for (const [name, value] of Object.entries(headers)) merged.set(name, value);
      return fetchImpl(input, { ...init, headers: merged });
    },
  });
  const client = new Client({ name: 'modern', version: '1' }, { versionNegotiation: PIN });
  await client.connect(transport);
  try {
    await client.callTool({ name: 'hello', arguments: {} });
  } finally {
    await client.close();
  }
}

describe('security: one caller identity, worked out at the door', () => {
  it('fairness.key sees the client address of modern, legacy and WebSocket callers; 127.0.0.1 and 127.0.0.2 are two', async () => {
    const { server, seen, url, wsUrl } = await recordingServer();
    try {
      await callFromModern(url, '127.0.0.2');
      await callFromModern(url, '127.0.0.2');
      await callFromModern(url, '127.0.0.1');
      const legacy = new LegacyClient({ name: 'legacy', version: '1' });
      await legacy.connect(new LegacyHttp(new URL(url), { fetch: fetchFrom('127.0.0.3') }));
      await legacy.callTool({ name: 'hello', arguments: {} });
      await legacy.close();
      const socket = await openSocket(wsUrl, { localAddress: '127.0.0.4' });
      const answered = new Promise((resolve) => socket.once('message', resolve));
      socket.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'hello', arguments: {}, _meta: envelope() },
        }),
      );
      await answered;
      socket.close();
      assert.deepEqual(seen, [
        'address 127.0.0.2',
        'address 127.0.0.2',
        'address 127.0.0.1',
        'address 127.0.0.3',
        'address 127.0.0.4',
      ]);
    } finally {
      await server.close();
    }
  });

  it('takes the client from X-Forwarded-For or Forwarded only when the peer is a trusted proxy', async () => {
    const trusting = await recordingServer({ trustProxy: ['127.0.0.1'] });
    try {
      await callFromModern(trusting.url, '127.0.0.1', { 'x-forwarded-for': '198.51.100.7, 203.0.113.9' });
      await callFromModern(trusting.url, '127.0.0.1', {
        forwarded: 'for="[2001:db8:1:2::7]:4711";proto=https',
      });
      // A client that is not the proxy cannot name itself someone else.
      await callFromModern(trusting.url, '127.0.0.2', { 'x-forwarded-for': '203.0.113.9' });
      assert.deepEqual(trusting.seen, [
        'address 203.0.113.9',
        'address 2001:db8:1:2::/64',
        'address 127.0.0.2',
      ]);
    } finally {
      await trusting.server.close();
    }
    const plain = await recordingServer();
    try {
      await callFromModern(plain.url, '127.0.0.1', { 'x-forwarded-for': '203.0.113.9' });
      assert.deepEqual(plain.seen, ['address 127.0.0.1'], 'without trustProxy the header is ignored');
    } finally {
      await plain.server.close();
    }
  });

  it('normalises addresses: IPv4-mapped IPv6 is IPv4, IPv6 is its /64', () => {
    assert.equal(normaliseAddress('::ffff:127.0.0.2'), '127.0.0.2');
    assert.equal(normaliseAddress('2001:DB8:0:1:aaaa::1'), '2001:db8:0:1::/64');
    assert.equal(normaliseAddress('[2001:db8::1%eth0]'), '2001:db8:0:0::/64');
    assert.equal(normaliseAddress('2001:db8:0:1::'), normaliseAddress('2001:db8:0:1:ffff:ffff:ffff:ffff'));
  });

  it('a token without sub (client "alice") is not the same caller as user "alice"', () => {
    const issuer = 'https://issuer.test';
    const client = principalFromClaims({ iss: issuer, client_id: 'alice' })!;
    const user = principalFromClaims({ iss: issuer, sub: 'alice', client_id: 'web' })!;
    const userAgain = principalFromClaims({ iss: issuer, sub: 'alice', client_id: 'alice' })!;
    assert.notEqual(principalKey(client), principalKey(user));
    assert.equal(principalKey(user), principalKey(userAgain), 'one user through two clients is one caller');
  });

  it('refuses a malformed trustProxy when the server is built, saying what to write', () => {
    assert.throws(
      () => new McpServer({ name: 't', version: '1', trustProxy: ['haproxy.internal'] }),
      /trustProxy: "haproxy.internal" is not an IP address or CIDR block/,
    );
    assert.throws(
      () => new McpServer({ name: 't', version: '1', trustProxy: ['10.0.0.0/40'] }),
      /not an IP address or CIDR block/,
    );
  });
});
