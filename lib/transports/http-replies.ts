/**
 * The small pieces of one HTTP exchange that every Streamable HTTP handler path needs: reading a
 * header, what the client accepts, and JSON replies (JSON-RPC errors carry `id: null`: they answer
 * the HTTP request, not any message in it).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonPiece } from '../protocol/message-encoding.js';
import type { AnswerBuffers } from './answer-buffers.js';
import { answerPayload, writePayload } from './chunk-bytes.js';

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

/**
 * A JSON body written as its chunks in order (connection.encodeChunks), so a large result is never
 * first copied into one joined string: a large body is encoded once into a Buffer, a small one
 * joined (chunk-bytes.ts). Either way it leaves in one write, with its length given
 * (chunked encoding would end it with a write of its own, which the client waits for). A large
 * body's memory comes from `buffers` and goes back there once the socket has taken it.
 */
export function sendJsonChunks(
  response: ServerResponse,
  status: number,
  chunks: readonly JsonPiece[],
  headers: Record<string, string> = {},
  buffers?: AnswerBuffers,
): void {
  const body = answerPayload(chunks, '', buffers);
  if (typeof body === 'string') {
    sendJson(response, status, body, headers);
    return;
  }
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(body.length),
    ...headers,
  });
  writePayload(response, body, buffers);
  buffers?.release(body);
  response.end();
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
