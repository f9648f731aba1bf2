/**
 * The two protocol eras, and the one place that decides which era a message belongs to.
 *
 * The legacy era (2024-11-05 .. 2025-11-25) negotiates once, at `initialize`, and keeps what it learned
 * in a session. The modern era (2026-07-28) is stateless: every request carries its version and the
 * client's capabilities in `params._meta`, so a message is classified on its own, never from what an
 * earlier message said. Everything era-specific downstream (result shapes, method tables, HTTP
 * statuses) keys off the `Era` this module returns; transports and the engine never re-derive it.
 */
import { ErrorCode } from './error-codes.js';
import { LOG_LEVELS, type LogLevel, logLevelIndex } from './log-levels.js';
import { ProtocolError } from './protocol-error.js';

export type Era = 'legacy' | 'modern';

/** Versions of the stateless era weft serves, newest first. */
export const MODERN_VERSIONS = ['2026-07-28'] as const;
export type ModernVersion = (typeof MODERN_VERSIONS)[number];
export const LATEST_MODERN_VERSION: ModernVersion = '2026-07-28';

/** `_meta` keys of the modern envelope (reverse-DNS, as the 2026-07-28 schema names them). */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** The one method a modern client may send before it knows anything about the server. */
export const DISCOVER_METHOD = 'server/discover';

/** The method that opens a long-lived notification stream (it replaced resources/subscribe and HTTP GET). */
export const LISTEN_METHOD = 'subscriptions/listen';

/** The server capability that must be advertised for a modern method to exist. */
export type CapabilityKey = 'tools' | 'prompts' | 'resources' | 'completions';

export interface ModernMethodRule {
  /** The result carries `ttlMs` and `cacheScope` (REQUIRED by the schema's CacheableResult). */
  cacheable: boolean;
  /** Absent from the server's capabilities -> the method does not exist (-32601), as the schema says. */
  capability?: CapabilityKey;
}

/**
 * Every request method of the 2026-07-28 era (the schema's ClientRequest). Anything else, including
 * the legacy era's initialize, ping, logging/setLevel, resources/subscribe|unsubscribe, tasks/result
 * and tasks/list,
 * is -32601 in a modern request.
 */
export const MODERN_METHODS: ReadonlyMap<string, ModernMethodRule> = new Map<string, ModernMethodRule>([
  [DISCOVER_METHOD, { cacheable: true }],
  ['tools/list', { cacheable: true, capability: 'tools' }],
  ['tools/call', { cacheable: false, capability: 'tools' }],
  ['prompts/list', { cacheable: true, capability: 'prompts' }],
  ['prompts/get', { cacheable: false, capability: 'prompts' }],
  ['resources/list', { cacheable: true, capability: 'resources' }],
  ['resources/templates/list', { cacheable: true, capability: 'resources' }],
  ['resources/read', { cacheable: true, capability: 'resources' }],
  ['completion/complete', { cacheable: false, capability: 'completions' }],
  [LISTEN_METHOD, { cacheable: false }],
  // The tasks extension's methods: gated per request on the extension (-32021), not on a capability.
  ['tasks/get', { cacheable: false }],
  ['tasks/update', { cacheable: false }],
  ['tasks/cancel', { cacheable: false }],
  // The Skills extension's methods (SEP-2640): they exist only on a server that serves skills.
  ['skills/list', { cacheable: true }],
  ['skills/get', { cacheable: true }],
  ['resources/directory/read', { cacheable: true }],
]);

/** Methods that exist only in the modern era: a legacy message naming them is -32601. */
export const MODERN_ONLY_METHODS: ReadonlySet<string> = new Set([
  DISCOVER_METHOD,
  LISTEN_METHOD,
  'tasks/update',
]);

/** The 2026-07-28 tasks extension (SEP-2663): its key in capabilities.extensions, both sides. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** `_meta` key that ties a legacy server-to-client request (or a tasks/result) to its task. */
export const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';

/** The methods whose results carry cache hints (the core six, the Skills extension's three). */
export type CacheableMethod =
  | 'skills/list'
  | 'skills/get'
  | 'resources/directory/read'
  | 'server/discover'
  | 'tools/list'
  | 'prompts/list'
  | 'resources/list'
  | 'resources/templates/list'
  | 'resources/read';

/** `cacheScope`: whether a cached result may be shared across authorization contexts. */
export type CacheScope = 'public' | 'private';

/** `resultType` of a result that is final (the only kind weft answers until MRTR arrives). */
export const RESULT_COMPLETE = 'complete';
/** A result that asks the client for input before the request can complete (MRTR). */
export const RESULT_INPUT_REQUIRED = 'input_required';
/** A tools/call answered with a task (the tasks extension): the Task fields, flat. */
export const RESULT_TASK = 'task';

/** What a modern request said about itself, checked once and carried with it. */
export interface ModernEnvelope {
  version: ModernVersion;
  clientCapabilities: Record<string, unknown>;
  clientInfo?: Record<string, unknown>;
  /** The `logLevel` the request opted in to; absent means no `notifications/message` for it. */
  logLevel?: LogLevel;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A message is modern when its `_meta` names a protocol version, or when it is `server/discover`
 * (which is modern even with a broken envelope, so that the envelope error is reported in the
 * modern shape). Everything else, `initialize` and session traffic included, is legacy.
 */
export function eraOf(method: string, params: Record<string, unknown> | undefined): Era {
  if (method === DISCOVER_METHOD) return 'modern';
  const meta = params?._meta;
  return isPlainObject(meta) && META.protocolVersion in meta ? 'modern' : 'legacy';
}

export function isModernVersion(version: unknown): version is ModernVersion {
  return typeof version === 'string' && (MODERN_VERSIONS as readonly string[]).includes(version);
}

/**
 * Checks a modern request's envelope, in the order clients and the conformance suite rely on: a
 * missing `_meta` or missing required key -> -32602; an unsupported version -> -32022 with
 * `data.supported` and `data.requested`; a `logLevel` that names no level -> -32602.
 */
export function readModernEnvelope(params: Record<string, unknown> | undefined): ModernEnvelope {
  const meta = params?._meta;
  if (!isPlainObject(meta)) {
    throw ProtocolError.invalidParams(
      `A ${LATEST_MODERN_VERSION} request needs params._meta with "${META.protocolVersion}" and "${META.clientCapabilities}"`,
    );
  }
  const version = meta[META.protocolVersion];
  if (typeof version !== 'string') {
    throw ProtocolError.invalidParams(`params._meta["${META.protocolVersion}"] must be a version string`);
  }
  const capabilities = meta[META.clientCapabilities];
  if (!isPlainObject(capabilities)) {
    throw ProtocolError.invalidParams(
      `params._meta["${META.clientCapabilities}"] must be an object ({} when the client declares none)`,
    );
  }
  if (!isModernVersion(version)) throw unsupportedVersion(version);
  const envelope: ModernEnvelope = { version, clientCapabilities: capabilities };
  const clientInfo = meta[META.clientInfo];
  if (isPlainObject(clientInfo)) envelope.clientInfo = clientInfo;
  if (META.logLevel in meta) {
    const level = meta[META.logLevel];
    if (logLevelIndex(level) < 0) {
      throw ProtocolError.invalidParams(
        `params._meta["${META.logLevel}"] is ${JSON.stringify(level)}; use one of ${LOG_LEVELS.join(', ')}, or leave it out for no log messages`,
      );
    }
    envelope.logLevel = level as LogLevel;
  }
  return envelope;
}

export function unsupportedVersion(requested: string): ProtocolError {
  return new ProtocolError(
    ErrorCode.UnsupportedProtocolVersion,
    `Unsupported protocol version ${JSON.stringify(requested)}; this server speaks ${MODERN_VERSIONS.join(', ')} (and the legacy versions through initialize)`,
    { supported: [...MODERN_VERSIONS], requested },
  );
}
