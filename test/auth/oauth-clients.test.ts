/**
 * The whole OAuth dance with real clients against a protected weft and a real authorization
 * server: the SDK v2 client's `ClientCredentialsProvider` in both eras starts from a bare 401,
 * follows `resource_metadata` to weft's RFC 9728 document, reads the authorization server's
 * metadata, gets a token for weft's canonical URL (RFC 8707) and calls a tool; the 1.x client
 * brings a bearer token of its own; WebSocket upgrades are checked the same way. Also: the
 * metadata at both well-known paths, with CORS for allowed pages, and an explicit audience (a
 * server behind a balancer) deciding the resource, the challenge and which tokens pass.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { WebSocket } from 'ws';
import { oauthResourceServer } from '../../lib/index.js';
import {
  type AuthorizationServerUnderTest,
  startAuthorizationServer,
} from '../support/authorization-server.js';
import { connectWithClientCredentials } from '../support/client-credentials-client.js';
import { echoServer, initializeRequest, type ProtectedServer, serveProtected } from './protected-server.js';

const SCOPES = ['mcp:tools', 'mcp:admin'];
const APP_ORIGIN = 'https://app.example';
const text = (result: unknown) => (result as { content?: { text?: string }[] }).content?.[0]?.text ?? '';

let as: AuthorizationServerUnderTest;
let weft: ProtectedServer;
let prmUrl: string;

before(async () => {
  as = await startAuthorizationServer({
    clients: [
      { clientId: 'agent', clientSecret: 'agent-secret', scopes: SCOPES },
      { clientId: 'reader', clientSecret: 'reader-secret', scopes: ['mcp:tools'] },
    ],
  });
  weft = await serveProtected(
    { issuer: as.issuer, scopesSupported: SCOPES, resourceName: 'weft under test' },
    { cors: { origins: [APP_ORIGIN] } },
  );
  prmUrl = `http://127.0.0.1:${weft.port}/.well-known/oauth-protected-resource/mcp`;
});
after(async () => {
  await weft.close();
  await as.stop();
});

describe('protected resource metadata (RFC 9728)', () => {
  const expected = () => ({
    resource: weft.url,
    authorization_servers: [as.issuer],
    bearer_methods_supported: ['header'],
    scopes_supported: SCOPES,
    resource_name: 'weft under test',
  });

  it('is served at the path-suffixed and at the root well-known URL, and named by the 401', async () => {
    for (const url of [prmUrl, `http://127.0.0.1:${weft.port}/.well-known/oauth-protected-resource`]) {
      const response = await fetch(url);
      assert.equal(response.status, 200, url);
      assert.match(response.headers.get('content-type') ?? '', /application\/json/);
      assert.deepEqual(await response.json(), expected());
    }
    const refused = await initializeRequest(weft.url);
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('www-authenticate'), `Bearer resource_metadata="${prmUrl}"`);
  });

  it('lets allowed pages read it (CORS), answering their preflight', async () => {
    const read = await fetch(prmUrl, { headers: { origin: APP_ORIGIN } });
    assert.equal(read.status, 200);
    assert.equal(read.headers.get('access-control-allow-origin'), APP_ORIGIN);
    const preflight = await fetch(prmUrl, {
      method: 'OPTIONS',
      headers: { origin: APP_ORIGIN, 'access-control-request-method': 'GET' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), APP_ORIGIN);
    const foreign = await fetch(prmUrl, { headers: { origin: 'https://other.example' } });
    assert.equal(foreign.headers.get('access-control-allow-origin'), null);
  });

  it('is not served without an auth hook that describes a resource', async () => {
    const { createServer } = await import('node:http');
    const server = echoServer();
    const http = createServer(server.handler({ auth: () => true }));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
    const { port } = http.address() as { port: number };
    try {
      assert.equal(
        (await fetch(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`)).status,
        404,
      );
    } finally {
      await server.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });
});

describe('the SDK v2 client with ClientCredentialsProvider does the whole dance', () => {
  const eras = {
    'legacy (initialize, 2025-11-25)': {},
    'modern (pinned 2026-07-28)': { versionNegotiation: { mode: { pin: '2026-07-28' as const } } },
  };
  for (const [era, options] of Object.entries(eras)) {
    it(`in the ${era} era: 401 -> metadata -> authorization server -> token for weft -> the call`, async () => {
      const logStart = weft.log.length;
      const asLogStart = as.requestLog.length;
      const { client, provider } = await connectWithClientCredentials(
        weft.url,
        { clientId: 'agent', clientSecret: 'agent-secret', issuer: as.issuer },
        options,
        'dance',
      );
      try {
        assert.equal(client.getProtocolEra(), era.startsWith('modern') ? 'modern' : 'legacy');
        assert.equal(
          text(await client.callTool({ name: 'echo', arguments: { text: 'through OAuth' } })),
          'through OAuth',
        );
        const weftSaw = weft.log.slice(logStart);
        assert.match(weftSaw[0]!, /^POST \/mcp 401$/, 'first a bare request, refused');
        assert.ok(weftSaw.includes('GET /.well-known/oauth-protected-resource/mcp 200'), weftSaw.join('\n'));
        assert.ok(as.requestLog.slice(asLogStart).includes('POST /token'), 'a token was requested');
        assert.ok(
          weftSaw.slice(1).every((line) => !line.endsWith(' 401')),
          'no refusal once it holds a token',
        );
        const tokens = provider.tokens();
        assert.ok(tokens?.access_token);
        const [, payload] = tokens.access_token.split('.');
        const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
        assert.equal(claims.aud, weft.url, "the token names weft's canonical URL (RFC 8707)");
        assert.deepEqual(
          claims.scope.split(' ').sort(),
          [...SCOPES].sort(),
          "no scope challenged: it asked for the metadata's scopes_supported",
        );
      } finally {
        await client.close();
      }
    });
  }
});

describe('the SDK 1.x client with a bearer header', () => {
  it('connects and calls with a token for weft, and is refused without one', async () => {
    const { accessToken } = await as.mintToken({
      clientId: 'reader',
      resource: weft.url,
      scope: 'mcp:tools',
    });
    const client = new LegacyClient({ name: 'bearer', version: '1.0.0' });
    await client.connect(
      new LegacyHttp(new URL(weft.url), {
        requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
      }),
    );
    try {
      assert.equal(text(await client.callTool({ name: 'echo', arguments: { text: 'hi' } })), 'hi');
    } finally {
      await client.close();
    }
    const bare = new LegacyClient({ name: 'bare', version: '1.0.0' });
    await assert.rejects(bare.connect(new LegacyHttp(new URL(weft.url))), /needs an OAuth bearer token/);
  });
});

describe('WebSocket, through listen({ http: { auth }, ws: { auth } })', () => {
  it('checks the token on the upgrade: 401 with the challenge without one, open with one', async () => {
    const server = echoServer();
    const auth = oauthResourceServer({ issuer: as.issuer, scopesSupported: SCOPES });
    await server.listen({ http: { port: 0, auth }, ws: { port: 0, auth }, handleSignals: false });
    try {
      const port = server.addresses.ws!.port;
      const url = `ws://127.0.0.1:${port}/`;
      const refusal = await new Promise<{ status: number; challenge: string }>((resolve, reject) => {
        const socket = new WebSocket(url, 'mcp');
        socket.once('unexpected-response', (_request, response) => {
          resolve({
            status: response.statusCode ?? 0,
            challenge: String(response.headers['www-authenticate']),
          });
          socket.terminate();
        });
        socket.once('open', () => reject(new Error('opened without a token')));
        socket.once('error', () => {});
      });
      assert.equal(refusal.status, 401);
      assert.match(
        refusal.challenge,
        /^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource/,
      );
      const { accessToken } = await as.mintToken({ clientId: 'agent', resource: `http://127.0.0.1:${port}` });
      const socket = new WebSocket(url, 'mcp', { headers: { authorization: `Bearer ${accessToken}` } });
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('unexpected-response', (_request, response) =>
          reject(new Error(`refused ${response.statusCode}`)),
        );
      });
      socket.close();
      const http = server.addresses.http!.port;
      assert.equal(
        (await fetch(`http://127.0.0.1:${http}/.well-known/oauth-protected-resource/mcp`)).status,
        200,
      );
    } finally {
      await server.close();
    }
  });
});

describe('behind a balancer: an explicit audience', () => {
  it('is the resource, names the metadata URL, and is the only audience that passes', async () => {
    const publicUrl = 'https://mcp.example.com/mcp';
    const behind = await serveProtected({ issuer: as.issuer, audience: publicUrl });
    try {
      const prmAt = `http://127.0.0.1:${behind.port}/.well-known/oauth-protected-resource/mcp`;
      const prm = (await (await fetch(prmAt)).json()) as { resource: string };
      assert.equal(prm.resource, publicUrl);
      const refused = await initializeRequest(behind.url);
      assert.equal(
        refused.headers.get('www-authenticate'),
        'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
      );
      const forPublic = await as.mintToken({ clientId: 'agent', resource: publicUrl });
      assert.equal(
        (await initializeRequest(behind.url, { authorization: `Bearer ${forPublic.accessToken}` })).status,
        200,
      );
      const forLoopback = await as.mintToken({ clientId: 'agent', resource: behind.url });
      const wrong = await initializeRequest(behind.url, {
        authorization: `Bearer ${forLoopback.accessToken}`,
      });
      assert.equal(wrong.status, 401);
      assert.match(wrong.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    } finally {
      await behind.close();
    }
  });
});
