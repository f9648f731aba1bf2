/**
 * The small pieces of one HTTP exchange that every Streamable HTTP handler path needs: reading a
 * header, what the client accepts, and JSON replies (JSON-RPC errors carry `id: null`: they answer
 * the HTTP request, not any message in it).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function acceptOf(request: IncomingMessage): { json: boolean; sse: boolean } {
  const accept = (request.headers.accept ?? '*/*').toLowerCase();
  const any = accept.includes('*/*');
  return {
    json: any || accept.includes('application/json'),
    sse: any || accept.includes('text/event-stream'),
  };
}

/** Sends JSON text already encoded (messages are encoded by the connection, message-encoding.ts). */
export function sendJson(
  response: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(text);
}

/** Below this, a body's chunks are joined: one small copy costs less than writing them one by one. */
const JOIN_BELOW_BYTES = 64 * 1024;

/**
 * A JSON body written as its chunks in order (connection.encodeChunks), so a large result is not
 * first copied into one joined string. The whole answer leaves in one write: with its length given
 * (chunked encoding would end it with a write of its own, which the client waits for) and the
 * socket corked over the chunks and the end. A small body is joined and sent as one string.
 */
export function sendJsonChunks(
  response: ServerResponse,
  status: number,
  chunks: readonly string[],
  headers: Record<string, string> = {},
): void {
  let chars = 0;
  for (const chunk of chunks) chars += chunk.length;
  if (chunks.length === 1 || chars < JOIN_BELOW_BYTES) {
    sendJson(response, status, chunks.length === 1 ? chunks[0]! : chunks.join(''), headers);
    return;
  }
  let bytes = 0;
  for (const chunk of chunks) bytes += Buffer.byteLength(chunk);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(bytes),
    ...headers,
  });
  response.cork();
  for (const chunk of chunks) response.write(chunk);
  response.end();
  response.uncork();
}

export function reply(
  response: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  // Only a number and a string: this stringify cannot throw.
  sendJson(response, status, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }), headers);
}
