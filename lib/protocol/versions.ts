/**
 * Protocol versions weft speaks and how a version is chosen at `initialize`.
 *
 * The legacy era (handshake, sessions, ping) covers every version up to 2025-11-25. Negotiation
 * follows the spec: echo the client's version when we support it, otherwise offer our latest and let
 * the client decide whether to carry on.
 */
export const LEGACY_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
export type LegacyVersion = (typeof LEGACY_VERSIONS)[number];

export const LATEST_LEGACY_VERSION: LegacyVersion = '2025-11-25';

/** The version a Streamable HTTP request means when it carries no MCP-Protocol-Version header. */
export const HTTP_DEFAULT_VERSION: LegacyVersion = '2025-03-26';

export function isSupportedVersion(version: unknown): version is LegacyVersion {
  return typeof version === 'string' && (LEGACY_VERSIONS as readonly string[]).includes(version);
}

export function negotiateVersion(requested: unknown): LegacyVersion {
  return isSupportedVersion(requested) ? requested : LATEST_LEGACY_VERSION;
}

/** JSON-RPC batches (an array of messages) exist in 2025-03-26 alone. */
export function allowsBatches(version: string | undefined): boolean {
  return version === '2025-03-26';
}
