/**
 * One 2026-07-28 request over HTTP as the suites that follow tasks across requests send it: the
 * client's capabilities in the envelope, the standard headers plus any of the test's own (a bearer
 * token), Mcp-Name naming the task on a tasks/* request, and the JSON-RPC answer read from a JSON
 * body or from the SSE stream. Kept once so the auth-binding, task-replica and fleet suites derive
 * headers and read answers the same way (test/transports/modern-http-peer.ts is the wire beneath).
 */
import assert from 'node:assert/strict';
import {
  envelope,
  type ModernHttpPeer,
  sseMessages,
  standardHeaders,
  type Wire,
} from '../transports/modern-http-peer.js';

export interface ModernRequestOptions {
  /** The envelope's clientCapabilities (default none). */
  capabilities?: object;
  /** Headers over the standard ones, e.g. `authorization`. */
  headers?: Record<string, string>;
}

export interface ModernExchange {
  status: number;
  headers: Headers;
  raw: string;
  /** The JSON-RPC answer: the JSON body, or the stream's message that has an id (undefined if none). */
  body: Wire;
}

export async function modernRequest(
  peer: ModernHttpPeer,
  method: string,
  params: Record<string, unknown>,
  { capabilities = {}, headers = {} }: ModernRequestOptions = {},
): Promise<ModernExchange> {
  const sent: Record<string, string> = { ...standardHeaders(method, params), ...headers };
  if (typeof params.taskId === 'string') sent['mcp-name'] = params.taskId;
  const reply = await peer.request(
    method,
    { ...params, _meta: envelope({ 'io.modelcontextprotocol/clientCapabilities': capabilities }) },
    sent,
  );
  const body = reply.body ?? sseMessages(reply.raw).find((message: Wire) => 'id' in message);
  return { status: reply.status, headers: reply.headers, raw: reply.raw, body };
}

/** `modernRequest`, failing the test when no answer came; resolves the answer (result or error). */
export async function modernAnswer(
  peer: ModernHttpPeer,
  method: string,
  params: Record<string, unknown>,
  options: ModernRequestOptions = {},
): Promise<Wire> {
  const reply = await modernRequest(peer, method, params, options);
  assert.ok(reply.body, `no reply to ${method}: HTTP ${reply.status} ${reply.raw}`);
  return reply.body;
}
