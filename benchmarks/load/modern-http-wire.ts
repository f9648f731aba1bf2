/**
 * The Streamable HTTP wire in the stateless 2026-07-28 era: no initialize and no session; every
 * request carries the envelope in `params._meta` (version, capabilities, client info) and the
 * routing headers the era requires (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`). The POSTs,
 * the keep-alive agent and the JSON-or-SSE replies are HttpWire's, unchanged.
 */
import { HttpWire } from './http-wire.js';
import type { WireMessage } from './wire.js';

export const MODERN_PROTOCOL_VERSION = '2026-07-28';

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'weft-bench', version: '0.1.0' },
};

/** What `Mcp-Name` carries for a method, when it carries anything (plain ASCII names only here). */
function routingName(method: unknown, params: Record<string, unknown> | undefined): string | undefined {
  if (method === 'tools/call' || method === 'prompts/get') return params?.name as string | undefined;
  if (method === 'resources/read') return params?.uri as string | undefined;
  return undefined;
}

export class ModernHttpWire extends HttpWire {
  override send(message: WireMessage): void {
    if (typeof message.method !== 'string') {
      super.send(message);
      return;
    }
    const params = (message.params ?? {}) as Record<string, unknown>;
    const meta = (params._meta ?? {}) as Record<string, unknown>;
    super.send({ ...message, params: { ...params, _meta: { ...ENVELOPE, ...meta } } });
  }

  protected override headersFor(message: WireMessage): Record<string, string> {
    const headers: Record<string, string> = { 'mcp-protocol-version': MODERN_PROTOCOL_VERSION };
    if (typeof message.method !== 'string') return headers;
    headers['mcp-method'] = message.method;
    const name = routingName(message.method, message.params as Record<string, unknown> | undefined);
    if (name !== undefined) headers['mcp-name'] = name;
    return headers;
  }

  /** The version is fixed by the era, never negotiated. */
  override negotiated(): void {}
}
