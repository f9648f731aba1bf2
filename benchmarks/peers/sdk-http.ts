/**
 * Serves an official-SDK McpServer over Streamable HTTP the way the SDK's own examples do: one
 * stateful transport per session, found by its `Mcp-Session-Id`, a fresh server per session.
 * Shared by both SDK peers so they differ only in how their tools run.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

export function serveSdkOverHttp(build: () => McpServer, port: number): void {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer(async (request, response) => {
    try {
      if (!request.url?.startsWith('/mcp')) {
        response.writeHead(404).end();
        return;
      }
      const body = request.method === 'POST' ? await readJson(request) : undefined;
      const sessionId = request.headers['mcp-session-id'];
      let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
      if (!transport) {
        if (!isInitializeRequest(body)) {
          response.writeHead(400, { 'content-type': 'application/json' });
          response.end(
            JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'No session' } }),
          );
          return;
        }
        const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id): void => {
            transports.set(id, created);
          },
        });
        created.onclose = () => {
          if (created.sessionId) transports.delete(created.sessionId);
        };
        await build().connect(created);
        transport = created;
      }
      await transport.handleRequest(request, response, body);
    } catch (error) {
      process.stderr.write(`sdk http: ${String(error)}\n`);
      if (!response.headersSent) response.writeHead(500).end();
    }
  });
  http.listen(port, '127.0.0.1');
}
