/**
 * How the 2026-07-28 era dresses a handler's answer: every result says its `resultType` and who
 * answered (`_meta["io.modelcontextprotocol/serverInfo"]`), the six cacheable ones carry `ttlMs`
 * and `cacheScope`, and the one legacy error code this era forbids (-32002, resource not found)
 * becomes -32602 with `data.uri`.
 *
 * Handlers return the same values in both eras; only this module knows the modern shape, so the
 * legacy era's answers stay byte-for-byte what they were.
 */
import { type CacheableMethod, META, MODERN_METHODS, RESULT_COMPLETE } from '../protocol/eras.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import { type CacheOptions, resolveCacheHint } from './cache-hints.js';
import type { ServerIdentity } from './server-identity.js';

export class ModernAnswers {
  readonly #serverInfo: ServerIdentity['serverInfo'];
  /** Resolved once: the same hint on every page and every call of a method. */
  readonly #hints = new Map<string, { ttlMs: number; cacheScope: string }>();

  constructor(identity: ServerIdentity, cache: CacheOptions | undefined) {
    this.#serverInfo = identity.serverInfo;
    for (const [method, rule] of MODERN_METHODS) {
      if (rule.cacheable) this.#hints.set(method, resolveCacheHint(cache, method as CacheableMethod));
    }
  }

  /** A copy of `value` in the modern shape; the handler's own object (maybe a shared one) is left alone. */
  result(method: string, value: unknown): Record<string, unknown> {
    const body = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
    const ownMeta = body._meta;
    const meta =
      typeof ownMeta === 'object' && ownMeta !== null
        ? { ...(ownMeta as Record<string, unknown>), [META.serverInfo]: this.#serverInfo }
        : { [META.serverInfo]: this.#serverInfo };
    const hint = this.#hints.get(method);
    return hint === undefined
      ? { ...body, resultType: RESULT_COMPLETE, _meta: meta }
      : { ...body, resultType: RESULT_COMPLETE, ttlMs: hint.ttlMs, cacheScope: hint.cacheScope, _meta: meta };
  }

  error(error: ProtocolError): ProtocolError {
    if (error.code !== ErrorCode.ResourceNotFound) return error;
    const uri = (error.data as { uri?: unknown } | undefined)?.uri;
    return ProtocolError.invalidParams(error.message, { uri });
  }
}
