/**
 * How the 2026-07-28 era dresses a handler's answer: every result says its `resultType` and who
 * answered (`_meta["io.modelcontextprotocol/serverInfo"]`), the six cacheable ones carry `ttlMs`
 * and `cacheScope`, and the one legacy error code this era forbids (-32002, resource not found)
 * becomes -32602 with `data.uri`.
 *
 * Handlers return the same values in both eras; only this module knows the modern shape, so the
 * legacy era's answers stay byte-for-byte what they were.
 */
import {
  type CacheableMethod,
  META,
  MODERN_METHODS,
  RESULT_COMPLETE,
  RESULT_INPUT_REQUIRED,
  RESULT_TASK,
} from '../protocol/eras.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { EncodedResult, encodeJson, type JsonText, piecedText } from '../protocol/message-encoding.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import { type CacheOptions, resolveCacheHint } from './cache-hints.js';
import { InputRequiredAnswer } from './mrtr-rounds.js';
import type { ServerIdentity } from './server-identity.js';
import { CreatedTaskAnswer } from './task-wire.js';

export class ModernAnswers {
  /** `_meta` of a result that brings none of its own: one shared, frozen object. */
  readonly #meta: Readonly<Record<string, unknown>>;
  /** Resolved once: the same hint on every page and every call of a method. */
  readonly #hints = new Map<string, { ttlMs: number; cacheScope: string }>();

  /** The JSON text that opens every spliced result: `{"resultType":"complete","_meta":{...}`. */
  readonly #prefix: string;

  constructor(identity: ServerIdentity, cache: CacheOptions | undefined) {
    this.#meta = Object.freeze({ [META.serverInfo]: identity.serverInfo });
    this.#prefix = `{"resultType":${JSON.stringify(RESULT_COMPLETE)},"_meta":${JSON.stringify(this.#meta)}`;
    for (const [method, rule] of MODERN_METHODS) {
      if (rule.cacheable) this.#hints.set(method, resolveCacheHint(cache, method as CacheableMethod));
    }
  }

  /**
   * A copy of `value` in the modern shape; the handler's own object is left alone (it may be a
   * constant a handler returns every time, also to legacy requests). Object.assign and plain
   * assignments, not object spread: in the profiles spread with these keys cost microseconds a result.
   */
  result(method: string, value: unknown): Record<string, unknown> {
    // Never cached: an input_required result carries no ttlMs / cacheScope.
    if (value instanceof InputRequiredAnswer) {
      return {
        resultType: RESULT_INPUT_REQUIRED,
        inputRequests: value.inputRequests,
        requestState: value.requestState,
        _meta: this.#meta,
      };
    }
    // A call that became a task: the Task fields, flat, and never cached either.
    if (value instanceof CreatedTaskAnswer) {
      return Object.assign({ resultType: RESULT_TASK }, value.fields, { _meta: this.#meta });
    }
    const body = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
    const result: Record<string, unknown> = Object.assign({}, body);
    result.resultType = RESULT_COMPLETE;
    const hint = this.#hints.get(method);
    if (hint !== undefined) {
      result.ttlMs = hint.ttlMs;
      result.cacheScope = hint.cacheScope;
    }
    const ownMeta = body._meta;
    result._meta =
      typeof ownMeta === 'object' && ownMeta !== null ? Object.assign({}, ownMeta, this.#meta) : this.#meta;
    return result;
  }

  /**
   * The modern result with its JSON text. A result tools/call already encoded (the common case,
   * on the hot path) gets the modern fields spliced in front of its text rather than being
   * stringified a second time; one with its own `_meta` or `resultType` is encoded whole.
   */
  encoded(method: string, value: unknown): { result: unknown; json: JsonText } {
    if (!(value instanceof EncodedResult)) {
      const result = this.result(method, value);
      return { result, json: encodeJson(result) };
    }
    const body = value.value as Record<string, unknown> | null;
    const result = this.result(method, body);
    const spliceable =
      typeof body === 'object' &&
      body !== null &&
      !('_meta' in body) &&
      !('resultType' in body) &&
      !this.#hints.has(method) &&
      firstText(value).startsWith('{');
    if (!spliceable) return { result, json: encodeJson(result) };
    const { json } = value;
    if (json.pieces === undefined) return { result, json: { ok: true, text: this.#spliced(json.text) } };
    // In pieces (long strings as they are), only the first is spliced: reading the whole text
    // would flatten it, a copy of every long string. A text in pieces is never an empty object, and
    // starts with the JSON before its first long string (characters, never bytes).
    const [first, ...others] = json.pieces;
    return { result, json: piecedText([`${this.#prefix},${(first as string).slice(1)}`, ...others]) };
  }

  /** An encoded result's text with the modern fields in front of its own. */
  #spliced(text: string): string {
    const rest = text.slice(1);
    return `${this.#prefix}${rest === '}' ? '}' : `,${rest}`}`;
  }

  error(error: ProtocolError): ProtocolError {
    if (error.code !== ErrorCode.ResourceNotFound) return error;
    const uri = (error.data as { uri?: unknown } | undefined)?.uri;
    return ProtocolError.invalidParams(error.message, { uri });
  }
}

/** The start of an encoded result's text: its first piece, or the text itself. */
function firstText(value: EncodedResult): string {
  const first = value.json.pieces?.[0];
  return typeof first === 'string' ? first : value.json.text;
}
