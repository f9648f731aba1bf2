/**
 * A least-privileged client connects: the first 401 names only the scopes every request needs
 * (`requiredScopes`), never all of `scopesSupported`, so a client that follows the spec's selection
 * order (the challenge's scope first) asks the authorization server for what it may hold. The scopes
 * of one tool are asked for later, by the 403 step-up, and only by the clients that call it.
 *
 * Real parts: oidc-provider as the authorization server, the SDK v2 client's
 * `ClientCredentialsProvider` in both eras.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ClientCredentialsProvider } from '@modelcontextprotocol/client';
import { McpServer } from '../../lib/index.js';
import {
  type AuthorizationServerUnderTest,
  startAuthorizationServer,
} from '../support/authorization-server.js';
import { connectWithClientCredentials } from '../support/client-credentials-client.js';
import { initializeRequest, type ProtectedServer, serveProtected } from './protected-server.js';

const BASE = 'tools:read';
const FILES = 'files:read';
const text = (result: unknown) => (result as { content?: { text?: string }[] }).content?.[0]?.text ?? '';

let as: AuthorizationServerUnderTest;
before(async () => {
  as = await startAuthorizationServer({
    clients: [
      { clientId: 'reader', clientSecret: 'reader-secret', scopes: [BASE] },
      { clientId: 'agent', clientSecret: 'agent-secret', scopes: [BASE, FILES] },
    ],
  });
});
after(() => as.stop());

/** A weft with a tool anyone holding the base scope may call and one that needs `files:read`. */
function serve(requiredScopes?: string[]): Promise<ProtectedServer> {
  const server = new McpServer({ name: 'least', version: '1.0.0', pool: { maxThreads: 1 } })
    .tool({
      name: 'echo',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      handler: ({ text }) => String(text),
    })
    .tool({
      name: 'read_file',
      scopes: [FILES],
      inputSchema: { type: 'object', properties: {} },
      handler: () => 'file contents',
    });
  return serveProtected({ issuer: as.issuer, scopesSupported: [BASE, FILES], requiredScopes }, {}, server);
}

describe('the first 401 names the scopes the request needs', () => {
  it('names no scope when no scope is required by every request (not all of scopesSupported)', async () => {
    const weft = await serve();
    try {
      const refused = await initializeRequest(weft.url);
      assert.equal(refused.status, 401);
      assert.equal(
        refused.headers.get('www-authenticate'),
        `Bearer resource_metadata="http://127.0.0.1:${weft.port}/.well-known/oauth-protected-resource/mcp"`,
      );
    } finally {
      await weft.close();
    }
  });

  it('names the server-wide required scopes only', async () => {
    const weft = await serve([BASE]);
    try {
      const refused = await initializeRequest(weft.url);
      assert.match(refused.headers.get('www-authenticate') ?? '', new RegExp(`, scope="${BASE}"$`));
    } finally {
      await weft.close();
    }
  });
});

describe('ClientCredentialsProvider with only the base scope', () => {
  const eras = {
    legacy: {},
    modern: { versionNegotiation: { mode: { pin: '2026-07-28' as const } } },
  };
  let weft: ProtectedServer;
  before(async () => {
    weft = await serve([BASE]);
  });
  after(() => weft.close());

  const connect = async (era: keyof typeof eras, clientId: string) => {
    const connected = await connectWithClientCredentials(
      weft.url,
      { clientId, clientSecret: `${clientId}-secret`, issuer: as.issuer },
      eras[era],
    );
    assert.equal(connected.client.getProtocolEra(), era);
    return connected;
  };
  const grantedScopes = (provider: ClientCredentialsProvider) =>
    (provider.tokens()?.scope ?? '').split(' ').filter(Boolean).sort();

  for (const era of Object.keys(eras) as (keyof typeof eras)[]) {
    it(`in the ${era} era: connects and calls what the base scope allows; step-up beyond it is refused upstream`, async () => {
      const { client, provider } = await connect(era, 'reader');
      try {
        assert.deepEqual(grantedScopes(provider), [BASE], 'it asked for the base scope only');
        assert.equal(text(await client.callTool({ name: 'echo', arguments: { text: 'least' } })), 'least');
        // The step-up asks for files:read, which this client may not hold: the authorization
        // server refuses, and the call fails instead of running.
        await assert.rejects(client.callTool({ name: 'read_file', arguments: {} }));
      } finally {
        await client.close();
      }
    });

    it(`in the ${era} era: a client that may hold more starts narrow and steps up when a tool needs it`, async () => {
      const { client, provider } = await connect(era, 'agent');
      try {
        assert.deepEqual(grantedScopes(provider), [BASE], 'the first token holds the base scope only');
        assert.equal(text(await client.callTool({ name: 'read_file', arguments: {} })), 'file contents');
        assert.deepEqual(grantedScopes(provider), [FILES, BASE].sort(), 'stepped up to files:read');
      } finally {
        await client.close();
      }
    });
  }
});
