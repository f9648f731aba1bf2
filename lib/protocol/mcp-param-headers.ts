/**
 * `x-mcp-header` and the values it puts on the wire (2026-07-28, Streamable HTTP "Request Metadata").
 *
 * A tool may mark some of its arguments with `"x-mcp-header": "<Name>"`; a client then mirrors each
 * such argument into an `Mcp-Param-<Name>` header so that a proxy can route on it without reading the
 * body. The facts both sides need live here, apart from tools and sockets: what a valid name is, how
 * a value is written into a header (plain, or the `=?base64?...?=` sentinel), and how a header value
 * is read back. The registration check (lib/tools) and the HTTP check (lib/transports) both use them,
 * so the two cannot disagree about what a header means.
 */

/** The schema keyword a property carries to be mirrored into a header. */
export const X_MCP_HEADER = 'x-mcp-header';

/** The prefix of a mirrored argument's header name: `Mcp-Param-Region`. */
export const PARAM_HEADER_PREFIX = 'Mcp-Param-';

/** The JSON Schema types an annotated property may have (`number` is excluded by the spec). */
export type HeaderParamType = 'string' | 'integer' | 'boolean';

/** One argument a tool mirrors into a header, as found when the tool registered. */
export interface HeaderParam {
  /** The name after `Mcp-Param-`, exactly as the schema wrote it (compared ignoring case). */
  readonly name: string;
  /** The chain of `properties` keys from the arguments object to the value. */
  readonly path: readonly string[];
  readonly type: HeaderParamType;
}

/** RFC 9110 section 5.1: a field name is `1*tchar`. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export function isHeaderToken(name: string): boolean {
  return TOKEN.test(name);
}

/**
 * The longest value an MCP header (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`)
 * may carry, in characters. Long enough for an 8 KiB URI in Base64; a longer one is refused before
 * it is read, so no header costs more than a bounded, linear amount of work.
 */
export const MAX_HEADER_VALUE_LENGTH = 12 * 1024;

/**
 * A header value without the optional whitespace (space, tab) around it (RFC 9110 section 5.5), in
 * one pass from each end. A regex such as `/^[ \t]+|[ \t]+$/g` costs quadratic time on a value made
 * of whitespace with one other character at each end: the second alternative is retried from every
 * position of the run.
 */
export function trimOptionalWhitespace(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isOptionalWhitespace(value.charCodeAt(start))) start++;
  while (end > start && isOptionalWhitespace(value.charCodeAt(end - 1))) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

const isOptionalWhitespace = (code: number) => code === 0x20 || code === 0x09;

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** What a header value means once read: the text it carries, or why it carries none. */
export type DecodedHeaderValue = { ok: true; value: string } | { ok: false; problem: string };

/**
 * Reads a header value that may use the Base64 sentinel (`Mcp-Name`, `Mcp-Param-*`). Optional
 * whitespace around the value is not part of it (RFC 9110 section 5.5). A value wrapped in the exact
 * lowercase markers is decoded strictly: the alphabet, the padding and the UTF-8 must all be right,
 * and the encoding must be the canonical one, so one value has exactly one spelling. A value without
 * both markers is literal, and must then be plain visible ASCII (tab and space allowed inside).
 */
export function decodeHeaderValue(raw: string): DecodedHeaderValue {
  const text = trimOptionalWhitespace(raw);
  if (
    text.length >= SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length &&
    text.startsWith(SENTINEL_PREFIX) &&
    text.endsWith(SENTINEL_SUFFIX)
  ) {
    const encoded = text.slice(SENTINEL_PREFIX.length, text.length - SENTINEL_SUFFIX.length);
    if (!BASE64.test(encoded)) {
      return {
        ok: false,
        problem: `${JSON.stringify(text)} is not valid Base64 (standard alphabet, "=" padding to a multiple of 4)`,
      };
    }
    const bytes = Buffer.from(encoded, 'base64');
    if (bytes.toString('base64') !== encoded) {
      return {
        ok: false,
        problem: `${JSON.stringify(text)} is not canonical Base64 (stray bits in its last character)`,
      };
    }
    try {
      return { ok: true, value: strictUtf8.decode(bytes) };
    } catch {
      return { ok: false, problem: `${JSON.stringify(text)} does not decode to UTF-8 text` };
    }
  }
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!(code === 0x09 || (code >= 0x20 && code <= 0x7e))) {
      return {
        ok: false,
        problem: `${JSON.stringify(text)} has a character outside visible ASCII; send such values as =?base64?<Base64 of the UTF-8>?=`,
      };
    }
  }
  return { ok: true, value: text };
}

/**
 * Writes a value the way a client must: plain when it is visible ASCII without surrounding
 * whitespace and does not itself look like the sentinel, else the sentinel around its UTF-8 Base64.
 */
export function encodeHeaderValue(value: string): string {
  let plain = value.length > 0 && value === value.trim();
  if (plain && value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX)) plain = false;
  for (let i = 0; plain && i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (!(code === 0x09 || (code >= 0x20 && code <= 0x7e))) plain = false;
  }
  return plain
    ? value
    : `${SENTINEL_PREFIX}${Buffer.from(value, 'utf8').toString('base64')}${SENTINEL_SUFFIX}`;
}

/**
 * Whether a decoded header value stands for the argument `value` of type `type`: strings compared
 * exactly, integers as numbers (`42.0` equals `42`), booleans as `true` / `false`.
 */
export function headerMatchesValue(header: string, value: unknown, type: HeaderParamType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string' && header === value;
    case 'integer': {
      if (typeof value !== 'number' || !/^[+-]?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(header)) return false;
      return Number(header) === value;
    }
    case 'boolean':
      return typeof value === 'boolean' && header === String(value);
  }
}
