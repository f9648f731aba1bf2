/**
 * The SDK v2 client (`@modelcontextprotocol/client`) as an agent with client credentials runs it:
 * `ClientCredentialsProvider` as the transport's auth provider, so from a bare 401 it finds the
 * protected resource metadata, the authorization server, and a token for the server's URL on its
 * own. The auth suites connect it this one way and differ only in the client, the era and the server.
 */
import {
  ClientCredentialsProvider,
  type ClientOptions,
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttp,
} from '@modelcontextprotocol/client';

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  /** The authorization server the provider must find behind the server (its `expectedIssuer`). */
  issuer: string;
}

/**
 * Connects a client named `name` (default: the client id) to the MCP endpoint `url`, getting its
 * tokens with `credentials`; `options` picks the era (`versionNegotiation`) among the rest. Returns
 * the connected client and its provider (whose `tokens()` say what was granted).
 */
export async function connectWithClientCredentials(
  url: string,
  credentials: ClientCredentials,
  options: ClientOptions = {},
  name = credentials.clientId,
): Promise<{ client: ModernClient; provider: ClientCredentialsProvider }> {
  const client = new ModernClient({ name, version: '1.0.0' }, options);
  const provider = new ClientCredentialsProvider({
    clientId: credentials.clientId,
    clientSecret: credentials.clientSecret,
    expectedIssuer: credentials.issuer,
  });
  await client.connect(new ModernHttp(new URL(url), { authProvider: provider }));
  return { client, provider };
}
