/**
 * How the client learns which era a server speaks, and the envelope each era's requests carry.
 *
 * `auto` probes with `server/discover` (the one method a modern client may send cold) and falls
 * back to `initialize` when the server does not answer it with a version the client speaks: a
 * legacy server answers -32601, or over HTTP refuses the POST (no session yet). A pinned version
 * skips the probe. Once decided, the era is fixed for the connection: modern requests carry their
 * version, capabilities and client info in `_meta` every time; legacy ones ride the session that
 * `initialize` opened.
 */
import { LATEST_MODERN_VERSION, META, MODERN_VERSIONS } from '../protocol/eras.js';
import { LATEST_LEGACY_VERSION, LEGACY_VERSIONS } from '../protocol/versions.js';
import { ConnectionClosedError, McpError } from './client-errors.js';
import type { RpcPeer } from './rpc-peer.js';

export type ProtocolChoice =
  | 'auto'
  | 'modern'
  | 'legacy'
  | (typeof MODERN_VERSIONS)[number]
  | (typeof LEGACY_VERSIONS)[number];

export interface ServerFacts {
  era: 'legacy' | 'modern';
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  serverInfo: Record<string, unknown> | undefined;
  instructions: string | undefined;
}

export interface HandshakeInput {
  choice: ProtocolChoice;
  clientInfo: { name: string; version: string };
  capabilities: Record<string, unknown>;
  timeoutMs: number;
}

const isModern = (v: string) => (MODERN_VERSIONS as readonly string[]).includes(v);
const isLegacy = (v: string) => (LEGACY_VERSIONS as readonly string[]).includes(v);

export function checkProtocolChoice(choice: unknown): ProtocolChoice {
  if (choice === undefined) return 'auto';
  if (choice === 'auto' || choice === 'modern' || choice === 'legacy') return choice;
  if (typeof choice === 'string' && (isModern(choice) || isLegacy(choice))) return choice as ProtocolChoice;
  throw new TypeError(
    `protocol ${JSON.stringify(choice)} is not one weft/client speaks; use 'auto', 'modern', 'legacy' or one of ` +
      [...MODERN_VERSIONS, ...LEGACY_VERSIONS].join(', '),
  );
}

/** The `_meta` a modern request carries (merged over the caller's own `_meta`). */
export function modernMeta(
  version: string,
  input: Pick<HandshakeInput, 'clientInfo' | 'capabilities'>,
  extra?: Record<string, unknown>,
): Record<string, unknown> {
  return {
    ...extra,
    [META.protocolVersion]: version,
    [META.clientCapabilities]: input.capabilities,
    [META.clientInfo]: input.clientInfo,
  };
}

export async function handshake(peer: RpcPeer, input: HandshakeInput): Promise<ServerFacts> {
  const { choice } = input;
  const modernVersion = isModern(choice) ? choice : LATEST_MODERN_VERSION;
  if (choice === 'auto' || choice === 'modern' || isModern(choice)) {
    try {
      const result = (await peer.request(
        'server/discover',
        { _meta: modernMeta(modernVersion, input) },
        { timeoutMs: input.timeoutMs },
      )) as Record<string, unknown>;
      const supported = Array.isArray(result.supportedVersions) ? (result.supportedVersions as string[]) : [];
      const version = supported.includes(modernVersion) ? modernVersion : supported.find(isModern);
      if (version !== undefined) {
        peer.protocolVersion = version;
        const meta = result._meta as Record<string, unknown> | undefined;
        return {
          era: 'modern',
          protocolVersion: version,
          capabilities: (result.capabilities as Record<string, unknown>) ?? {},
          serverInfo: meta?.[META.serverInfo] as Record<string, unknown> | undefined,
          instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
        };
      }
      if (choice !== 'auto') {
        throw new McpError(
          -32022,
          `the server supports ${supported.join(', ') || 'no modern version'}, not ${modernVersion}`,
        );
      }
    } catch (error) {
      if (choice !== 'auto' || error instanceof ConnectionClosedError) throw error;
      // Any other refusal of the probe means: not a modern server; try the handshake.
    }
  }
  const asked = isLegacy(choice) ? choice : LATEST_LEGACY_VERSION;
  const result = (await peer.request(
    'initialize',
    { protocolVersion: asked, capabilities: input.capabilities, clientInfo: input.clientInfo },
    { timeoutMs: input.timeoutMs },
  )) as Record<string, unknown>;
  const version = String(result.protocolVersion);
  if (!isLegacy(version)) {
    await peer.close();
    throw new McpError(
      -32602,
      `the server chose protocol version ${version}, which weft/client does not speak`,
    );
  }
  peer.protocolVersion = version;
  peer.transport.setProtocolVersion?.(version);
  await peer.notify('notifications/initialized');
  return {
    era: 'legacy',
    protocolVersion: version,
    capabilities: (result.capabilities as Record<string, unknown>) ?? {},
    serverInfo: result.serverInfo as Record<string, unknown> | undefined,
    instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
  };
}
