/**
 * Which era an HTTP POST body belongs to, for the one endpoint that serves both.
 *
 * The message decides, as everywhere (`eraOf`). Over HTTP one more fact is available before the body
 * is trusted: the `MCP-Protocol-Version` header. A legacy client never sends a 2026-07-28 version
 * there, so a request that names one but forgot its `_meta` envelope is a modern request with a
 * broken envelope, and is told so in the modern shape (-32602), rather than being taken for a legacy
 * request without a session (`initialize` without an envelope stays legacy: it is the handshake a
 * dual-era client falls back to). Batches and responses exist only in the legacy era.
 */
import { type Era, eraOf, isModernVersion } from './eras.js';

export function eraOfPost(body: unknown, protocolVersionHeader: string | undefined): Era {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'legacy';
  const { method, params } = body as { method?: unknown; params?: unknown };
  if (typeof method !== 'string') return 'legacy';
  const plainParams =
    typeof params === 'object' && params !== null && !Array.isArray(params)
      ? (params as Record<string, unknown>)
      : undefined;
  if (eraOf(method, plainParams) === 'modern') return 'modern';
  // A dual-era client falling back to the handshake may still carry its first choice in the header.
  if (method === 'initialize') return 'legacy';
  return isModernVersion(protocolVersionHeader?.trim()) ? 'modern' : 'legacy';
}
