/**
 * The bindings with real tokens: an `oidc-provider` authorization server issues client-credentials
 * JWTs for weft's resource, `oauthResourceServer` verifies them, and its principals bind as a custom
 * hook's do. Two clients of the authorization server are two callers:
 * - a token without a tool's scope gets 403 with the resource server's step-up challenge (naming
 *   the scope and the metadata URL); a token with it runs the tool, whose ctx.auth is the token's
 *   principal (issuer, client, scopes, expiry, claims);
 * - a task one client created is unknown to the other, exactly as an id that never existed.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type McpServer, oauthResourceServer } from '../../lib/index.js';
import {
  type AuthorizationServerUnderTest,
  startAuthorizationServer,
} from '../support/authorization-server.js';
import { modernRequest } from '../support/modern-request.js';
import { ModernHttpPeer } from '../transports/modern-http-peer.js';
import { bindingServer } from './binding-server.js';
import { bearer } from './token-principals.js';

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

let as: AuthorizationServerUnderTest;
let weft: McpServer;
let http: Server;
let url: string;

before(async () => {
  const scopes = ['notes:read', 'notes:write'];
  as = await startAuthorizationServer({
    clients: [
      { clientId: 'alice-agent', clientSecret: 'alice-secret', scopes },
      { clientId: 'bob-agent', clientSecret: 'bob-secret', scopes },
    ],
  });
  weft = bindingServer();
  const handle = weft.handler({ auth: oauthResourceServer({ issuer: as.issuer, scopesSupported: scopes }) });
  http = createServer((request, response) => handle(request, response));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});
after(async () => {
  await weft.close();
  http.closeAllConnections();
  await new Promise((resolve) => http.close(resolve));
  await as.stop();
});

const token = async (clientId: string, scope: string) =>
  (await as.mintToken({ clientId, resource: url, scope })).accessToken;

async function rpc(
  access: string,
  method: string,
  params: Record<string, unknown>,
  capabilities: object = {},
) {
  return modernRequest(new ModernHttpPeer(url), method, params, { capabilities, headers: bearer(access) });
}

describe('bindings with oauthResourceServer and real tokens', () => {
  it("steps up a tool's scope with the resource server's challenge, and hands the token's principal to ctx.auth", async () => {
    const readOnly = await token('alice-agent', 'notes:read');
    const refused = await rpc(readOnly, 'tools/call', { name: 'write_note', arguments: { text: 'a' } });
    assert.equal(refused.status, 403);
    const challenge = refused.headers.get('www-authenticate') ?? '';
    assert.match(challenge, /error="insufficient_scope"/);
    assert.match(challenge, /scope="notes:write"/);
    assert.match(
      challenge,
      /resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
    const writer = await token('alice-agent', 'notes:read notes:write');
    const wrote = await rpc(writer, 'tools/call', { name: 'write_note', arguments: { text: 'a' } });
    assert.equal(wrote.body.result.content[0].text, 'wrote a');
    const whoami = await rpc(writer, 'tools/call', { name: 'whoami_inline', arguments: {} });
    const { auth, frozen } = JSON.parse(whoami.body.result.content[0].text);
    assert.equal(frozen, true);
    assert.equal(auth.issuer, as.issuer);
    assert.equal(auth.clientId, 'alice-agent');
    assert.deepEqual([...auth.scopes].sort(), ['notes:read', 'notes:write']);
    assert.ok(auth.expiresAt > Date.now());
    assert.equal(auth.claims.aud, url);
  });

  it("makes one client's task unknown to the other", async () => {
    const alice = await token('alice-agent', 'notes:read');
    const bob = await token('bob-agent', 'notes:read');
    const created = await rpc(alice, 'tools/call', { name: 'long_task', arguments: {} }, TASKS);
    const { taskId } = created.body.result;
    assert.ok(taskId, JSON.stringify(created.body));
    const theirs = await rpc(bob, 'tasks/get', { taskId }, TASKS);
    const unknownId = randomUUID();
    const none = await rpc(bob, 'tasks/get', { taskId: unknownId }, TASKS);
    assert.equal(theirs.body.error?.code, -32602);
    assert.equal(theirs.body.error.message, none.body.error.message.replace(unknownId, taskId));
    assert.equal((await rpc(bob, 'tasks/cancel', { taskId }, TASKS)).body.error?.code, -32602);
    assert.equal((await rpc(alice, 'tasks/get', { taskId }, TASKS)).body.result.status, 'working');
    await rpc(alice, 'tasks/cancel', { taskId }, TASKS);
  });
});
