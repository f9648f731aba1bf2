/**
 * Puts the SDK v2's web-standard handler (`createMcpHandler`, a `fetch(Request) -> Response`) on a
 * plain node:http server at /mcp. The SDK leaves this bridge to `@modelcontextprotocol/node`; it is
 * a dozen lines, written here so the peer needs no package beyond the server itself. Response
 * bodies are streamed as they come, so SSE events reach the load client when the SDK writes them.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { createMcpHandler, type McpServer } from '@modelcontextprotocol/server';

async function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return chunks.length === 0 ? undefined : Buffer.concat(chunks);
}

function toWebRequest(
  request: IncomingMessage,
  body: Buffer | undefined,
  port: number,
  signal: AbortSignal,
): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  return new Request(`http://127.0.0.1:${port}${request.url ?? '/'}`, {
    method: request.method ?? 'GET',
    headers,
    body: body && request.method !== 'GET' && request.method !== 'HEAD' ? body : undefined,
    signal,
  });
}

export function serveFetchHandler(build: () => McpServer, port: number): void {
  const handler = createMcpHandler(() => build());
  const http = createServer(async (request, response) => {
    try {
      if (!request.url?.startsWith('/mcp')) {
        response.writeHead(404).end();
        return;
      }
      // A client that goes away aborts the request, which is how the SDK hears a cancel over HTTP.
      const abort = new AbortController();
      response.once('close', () => abort.abort());
      const reply = await handler.fetch(toWebRequest(request, await readBody(request), port, abort.signal));
      response.writeHead(reply.status, Object.fromEntries(reply.headers));
      if (!reply.body) {
        response.end();
        return;
      }
      const body = Readable.fromWeb(reply.body as WebReadableStream<Uint8Array>, { signal: abort.signal });
      body.on('error', () => response.destroy());
      body.pipe(response);
    } catch (error) {
      process.stderr.write(`sdk-v2 http: ${String(error)}\n`);
      if (!response.headersSent) response.writeHead(500).end();
      else response.destroy();
    }
  });
  // While a CPU-bound handler blocks the event loop, Node runs its overdue timers before it reads
  // sockets, so the default 5 s keep-alive timer can close a socket whose next request is already
  // in flight (the client sees ECONNRESET). A long keep-alive keeps the benchmark about the SDK's
  // latency rather than that race; the load client's agent closes idle sockets before it.
  http.keepAliveTimeout = 60_000;
  http.listen(port, '127.0.0.1');
}
