/**
 * The audience a token must name, when the server derives it from the request: only from a `Host`
 * that names the very address and port the request arrived at, so a token the same authorization
 * server issued for another local resource (another port of 127.0.0.1) is refused even when the
 * client writes that resource's Host. Listening beyond loopback, where any Host may be written,
 * needs the audience in the configuration: a start without it fails and says what to set.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { oauthResourceServer } from '../../lib/index.js';
import {
  echoServer,
  initializeRequest,
  type ProtectedServer,
  serveProtected,
} from '../auth/protected-server.js';
import {
  type AuthorizationServerUnderTest,
  startAuthorizationServer,
} from '../support/authorization-server.js';
import { freePort } from '../support/free-port.js';

let as: AuthorizationServerUnderTest;
let weft: ProtectedServer;
before(async () => {
  as = await startAuthorizationServer({
    clients: [{ clientId: 'agent', clientSecret: 'agent-secret', scopes: ['mcp:tools'] }],
  });
  // mcp.example.com passes the DNS-rebinding guard, so the audience check is what refuses it.
  weft = await serveProtected({ issuer: as.issuer }, { allowedHosts: ['mcp.example.com'] });
});
after(async () => {
  await weft.close();
  await as.stop();
});

/** node's fetch will not let a caller set Host: a raw request does. */
async function withHost(host: string, token: string): Promise<{ status: number; body: string }> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const sent = request(
      {
        host: '127.0.0.1',
        port: weft.port,
        path: '/mcp',
        method: 'POST',
        headers: {
          host,
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    sent.once('error', reject);
    sent.end(body);
  });
}

describe('the audience derived from Host', () => {
  it("refuses a token for another local port's resource, even with that resource's Host", async () => {
    const otherPort = await freePort();
    const otherResource = `http://127.0.0.1:${otherPort}/mcp`;
    const { accessToken } = await as.mintToken({ clientId: 'agent', resource: otherResource });
    const answer = await withHost(`127.0.0.1:${otherPort}`, accessToken);
    assert.equal(answer.status, 401, answer.body);
    assert.match(answer.body, /port/);
    assert.match(answer.body, /audience/);
  });

  it('refuses a Host naming another address than the one the request reached', async () => {
    const { accessToken } = await as.mintToken({
      clientId: 'agent',
      resource: `http://mcp.example.com:${weft.port}/mcp`,
    });
    const answer = await withHost(`mcp.example.com:${weft.port}`, accessToken);
    assert.equal(answer.status, 401, answer.body);
  });

  it('accepts the Host of the very address and port (and localhost on loopback)', async () => {
    const { accessToken } = await as.mintToken({ clientId: 'agent', resource: weft.url });
    assert.equal((await withHost(`127.0.0.1:${weft.port}`, accessToken)).status, 200);
    const local = await as.mintToken({ clientId: 'agent', resource: `http://localhost:${weft.port}/mcp` });
    assert.equal((await withHost(`localhost:${weft.port}`, local.accessToken)).status, 200);
    const plain = await initializeRequest(weft.url, { authorization: `Bearer ${accessToken}` });
    assert.equal(plain.status, 200);
  });
});

describe('listening beyond loopback', () => {
  for (const transport of ['http', 'ws'] as const) {
    it(`${transport}: without an audience the start fails and says what to set`, async () => {
      const server = echoServer();
      const auth = oauthResourceServer({ issuer: as.issuer });
      try {
        await assert.rejects(
          server.listen({ [transport]: { port: 0, host: '0.0.0.0', auth }, handleSignals: false }),
          /audience/,
        );
      } finally {
        await server.close();
      }
    });
  }

  it('with an audience it starts', async () => {
    const server = echoServer();
    const auth = oauthResourceServer({ issuer: as.issuer, audience: 'https://mcp.example.com/mcp' });
    try {
      await server.listen({ http: { port: 0, host: '0.0.0.0', auth }, handleSignals: false });
      assert.ok(server.addresses.http!.port > 0);
    } finally {
      await server.close();
    }
  });
});
