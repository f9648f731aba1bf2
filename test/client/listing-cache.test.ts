/**
 * The client's listing rules: a listing is trusted for its ttlMs; a -32020 after it expired makes
 * the client list again and retry once with the fresh headers (never while the listing is fresh);
 * a tool with an invalid x-mcp-header annotation is dropped from the listing; the token provider is
 * asked for every request. Messages are counted on a recording transport wrapped around HTTP.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import {
  type ClientTransport,
  HttpClientTransport,
  McpClient,
  McpError,
  type SendOptions,
  type TransportReceiver,
} from '../../lib/client/index.js';
import { bearerAuth, McpServer } from '../../lib/index.js';
import type { JsonRpcMessage } from '../../lib/protocol/json-rpc.js';

/** Passes everything through and remembers each request's method and headers. */
class RecordingTransport implements ClientTransport {
  readonly kind = 'recording';
  readonly sent: { method: string; headers: Record<string, string> }[] = [];
  constructor(readonly inner: ClientTransport) {}
  start(receiver: TransportReceiver) {
    return this.inner.start(receiver);
  }
  send(message: JsonRpcMessage, options?: SendOptions) {
    if ('method' in message) this.sent.push({ method: message.method, headers: { ...options?.headers } });
    return this.inner.send(message, options);
  }
  cancelsByClosingStream(version: string | undefined) {
    return this.inner.cancelsByClosingStream(version);
  }
  close() {
    return this.inner.close();
  }
  count(method: string) {
    return this.sent.filter((entry) => entry.method === method).length;
  }
}

const servers: McpServer[] = [];
after(() => Promise.all(servers.map((server) => server.close())));

async function serve(ttlMs: number, options: Partial<ConstructorParameters<typeof McpServer>[0]> = {}) {
  const server = new McpServer({
    name: 'cache',
    version: '0.0.0',
    cache: { methods: { 'tools/list': { ttlMs } } },
    ...options,
  });
  servers.push(server);
  await server.listen({ http: { port: 0, host: '127.0.0.1' } });
  return { server, url: `http://127.0.0.1:${server.addresses.http?.port}/mcp` };
}

const routed = (header: string) => ({
  name: 'routed',
  description: 'Says where it ran',
  inputSchema: {
    type: 'object',
    properties: { region: { type: 'string', 'x-mcp-header': header } },
    required: ['region'],
  },
  handler: ({ region }: { region: string }) => `ran in ${region}`,
});

describe('the listing cache and the -32020 rule', () => {
  test('an expired listing: -32020 re-lists and retries once with the new header', async () => {
    const { server, url } = await serve(0);
    server.tool(routed('Region') as never);
    const transport = new RecordingTransport(new HttpClientTransport(url));
    const client = await new McpClient(transport, { protocol: 'modern' }).connect();
    await client.listTools();
    server.removeTool('routed');
    server.tool(routed('Zone') as never);
    const result = await client.callTool('routed', { region: 'eu' });
    assert.deepEqual(result.content, [{ type: 'text', text: 'ran in eu' }]);
    assert.equal(transport.count('tools/list'), 2);
    const calls = transport.sent.filter((entry) => entry.method === 'tools/call');
    assert.deepEqual(
      calls.map((call) => call.headers),
      [{ 'Mcp-Param-Region': 'eu' }, { 'Mcp-Param-Zone': 'eu' }],
    );
    await client.close();
  });

  test("a fresh listing is trusted: -32020 is the caller's error, nothing retried", async () => {
    const { server, url } = await serve(60_000);
    server.tool(routed('Region') as never);
    const transport = new RecordingTransport(new HttpClientTransport(url));
    const client = await new McpClient(transport, { protocol: 'modern' }).connect();
    await client.listTools();
    await client.listTools();
    assert.equal(transport.count('tools/list'), 1, 'the second listing came from the cache');
    server.removeTool('routed');
    server.tool(routed('Zone') as never);
    await assert.rejects(client.callTool('routed', { region: 'eu' }), (error: unknown) => {
      assert.ok(error instanceof McpError);
      assert.equal(error.code, -32020);
      return true;
    });
    assert.equal(transport.count('tools/call'), 1);
    await client.close();
  });

  test('a tool with an invalid annotation is dropped, saying why', async () => {
    // weft refuses such a tool at registration, so an upstream serving one is faked by a transport
    // that edits the listing as it arrives.
    const { server, url } = await serve(0);
    server.tool(routed('Region') as never);
    const inner = new HttpClientTransport(url);
    const editing: ClientTransport = {
      kind: 'editing',
      start: (receiver) =>
        inner.start({
          message: (message) => {
            const result =
              'result' in message ? (message.result as { tools?: { inputSchema: object }[] }) : undefined;
            if (result?.tools) {
              result.tools.push({
                name: 'bad',
                inputSchema: { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } },
              } as never);
            }
            receiver.message(message);
          },
          closed: (error) => receiver.closed(error),
        }),
      send: (message, options) => inner.send(message, options),
      cancelsByClosingStream: (version) => inner.cancelsByClosingStream(version),
      close: () => inner.close(),
    };
    const client = await new McpClient(editing, { protocol: 'modern' }).connect();
    const listing = await client.toolListing();
    assert.deepEqual(
      listing.tools.map((tool) => tool.name),
      ['routed'],
    );
    assert.equal(listing.dropped[0]?.name, 'bad');
    assert.match(listing.dropped[0]?.problem ?? '', /"number" cannot be mirrored/);
    await client.close();
  });

  test('the token provider is asked for every request', async () => {
    let tokens = 0;
    const server = new McpServer({ name: 'auth', version: '0.0.0' });
    servers.push(server);
    server.tool(routed('Region') as never);
    await server.listen({
      http: { port: 0, host: '127.0.0.1', auth: bearerAuth((token) => token.startsWith('ok-')) },
    });
    const authUrl = `http://127.0.0.1:${server.addresses.http?.port}/mcp`;
    const refused = new McpClient(new HttpClientTransport(authUrl), { protocol: 'modern' });
    await assert.rejects(refused.connect(), /bearer token/i);
    const client = await new McpClient(
      new HttpClientTransport(authUrl, {
        token: () => {
          tokens++;
          return `ok-${tokens}`;
        },
      }),
      { protocol: 'modern' },
    ).connect();
    await client.callTool('routed', { region: 'x' });
    // discover, then the call without a listing (no header known: -32020), tools/list, the retry.
    assert.equal(tokens, 4);
    await client.close();
  });
});
