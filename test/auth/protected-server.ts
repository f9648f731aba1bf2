/**
 * A weft server protected by `oauthResourceServer`, mounted with `server.handler` on an HTTP
 * server of the test's own (no pool thread is started, so closing at once is safe), and the
 * authorization server it trusts. Tests talk to it with real clients and raw fetches.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer, type OAuthResourceServerOptions, oauthResourceServer } from '../../lib/index.js';
import type { StreamableHttpOptions } from '../../lib/transports/streamable-http.js';

export interface ProtectedServer {
  server: McpServer;
  /** The endpoint, `http://127.0.0.1:<port>/mcp`: also its canonical URL (the default audience). */
  url: string;
  port: number;
  /** Every request it answered, as `METHOD /path STATUS`, in order. */
  log: string[];
  close(): Promise<void>;
}

export function echoServer(): McpServer {
  return new McpServer({ name: 'protected', version: '1.0.0', pool: { maxThreads: 1 } }).tool({
    name: 'echo',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    handler: ({ text }) => String(text),
  });
}

/** Serves `server` (by default `echoServer()`) behind `oauthResourceServer(auth)` on a free port. */
export async function serveProtected(
  auth: OAuthResourceServerOptions,
  transport: Omit<StreamableHttpOptions, 'auth'> = {},
  server: McpServer = echoServer(),
): Promise<ProtectedServer> {
  const handle = server.handler({ ...transport, auth: oauthResourceServer(auth) });
  const log: string[] = [];
  const http = createServer((request, response) => {
    response.once('finish', () => log.push(`${request.method} ${request.url} ${response.statusCode}`));
    handle(request, response);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
  const { port } = http.address() as AddressInfo;
  return {
    server,
    url: `http://127.0.0.1:${port}${transport.path ?? '/mcp'}`,
    port,
    log,
    async close() {
      await server.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

/** A JSON-RPC POST of the legacy era's first message, with the headers a test chooses. */
export function initializeRequest(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  });
}
