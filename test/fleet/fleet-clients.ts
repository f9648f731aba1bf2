/**
 * The ways the fleet suites talk to a router replica: the official 1.x SDK client (legacy era,
 * one session per replica), bare modern (2026-07-28) JSON-RPC over HTTP for tasks, which are not
 * tied to a session and so can be created on one replica and read or cancelled on another, and a
 * bare legacy session that shows every JSON-RPC message of a call's response (the storm counts
 * answers per request id, which the SDK would hide).
 */
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { modernAnswer } from '../support/modern-request.js';
import { HttpPeer, readEvents } from '../transports/http-peer.js';
import { ModernHttpPeer, type Wire } from '../transports/modern-http-peer.js';

export type { Wire };

/** A 1.x SDK client connected to `url` (legacy era, 2025-11-25). */
export async function legacyClient(url: URL, capabilities: Record<string, unknown> = {}): Promise<Client> {
  const client = new Client({ name: 'weft-fleet-test', version: '1.0.0' }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

/** The text of a tool result's first content block. */
export const textOf = (result: unknown): string =>
  (result as { content?: { text?: string }[] }).content?.[0]?.text ?? '';

const TASKS_CAPABILITY = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

/** One modern request to `url`; resolves the JSON-RPC reply (result or error). */
export async function modernRpc(
  url: URL,
  method: string,
  params: Record<string, unknown>,
  capabilities: object = TASKS_CAPABILITY,
): Promise<Wire> {
  return modernAnswer(new ModernHttpPeer(url.href), method, params, { capabilities });
}

/** A legacy session on one replica, spoken raw: every message a call's response carried. */
export class RawLegacySession {
  readonly #peer: HttpPeer;

  private constructor(peer: HttpPeer) {
    this.#peer = peer;
  }

  static async open(url: URL): Promise<RawLegacySession> {
    const peer = new HttpPeer(url.href);
    const response = await peer.initialize();
    assert.equal(response.status, 200, 'the legacy session opened');
    assert.ok(peer.sessionId, 'the replica minted a session id');
    return new RawLegacySession(peer);
  }

  /**
   * Calls `name` under request id `id` and resolves every JSON-RPC message of the response, in
   * order. `onSent` runs once the replica has taken the request (the response has begun); a
   * `signal` stops reading (the messages read until then are resolved).
   */
  async call(
    id: number,
    name: string,
    args: Record<string, unknown>,
    { onSent, signal }: { onSent?: () => void; signal?: AbortSignal } = {},
  ): Promise<Wire[]> {
    const messages: Wire[] = [];
    try {
      const request = { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } };
      const response = await this.#peer.post(request, {}, signal);
      onSent?.();
      if (response.headers.get('content-type')?.startsWith('application/json')) {
        const body = await response.json();
        messages.push(...(Array.isArray(body) ? body : [body]));
      } else {
        await readEvents(response, (event) => {
          if (event.data !== '') messages.push(JSON.parse(event.data));
          return false;
        });
      }
    } catch (error) {
      if (!signal?.aborted) throw error;
    }
    return messages;
  }

  /** Sends `notifications/cancelled` for request `id`. */
  async cancel(id: number): Promise<void> {
    const response = await this.#peer.post({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: id, reason: 'the test gave up on it' },
    });
    await response.body?.cancel();
  }

  async close(): Promise<void> {
    await this.#peer.delete().catch(() => {});
  }
}
