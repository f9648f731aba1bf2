/**
 * The one place where outgoing JSON-RPC messages become JSON text, for every transport.
 *
 * `JSON.stringify` throws on values a handler can easily return (a BigInt, a cycle, a getter or
 * `toJSON` that throws, nesting deeper than the stack), and a throw inside a transport's `send`
 * loses the answer. So encoding here never throws: a response that cannot be encoded still leaves
 * as a JSON-RPC -32603 under its id, a notification or request that cannot is dropped, and either
 * way the reason goes to the server log.
 *
 * The router encodes each result once, before it is sent (to turn a failure into an answer the
 * client can use), and `encodedSuccess` keeps that text with the message, so the transport does
 * not stringify the same result a second time. In one process, alternating with the code before
 * this encoder, a tools/call returning a small CallToolResult took 4.7-5.9 us of CPU instead of
 * 6.4-7.9 (an echo: 3.6-4.3 instead of 3.7-4.9).
 */
import { ErrorCode } from './error-codes.js';
import type { JsonRpcMessage, JsonRpcSuccess, RequestId } from './json-rpc.js';

/**
 * A piece of a JSON text: characters, or bytes already encoded as UTF-8 (a long string a pool
 * thread wrote as JSON, tools/moved-strings.ts), which transports write as they are.
 */
export type JsonPiece = string | Buffer;

/**
 * A value as JSON text, or why it has none (a phrase: "a BigInt at content[0].text"). `pieces`, when
 * present, are the text cut where long strings sit as they are (result-encoding.ts): written in
 * order they are the text, and a writer that takes them never copies those strings. With pieces,
 * `text` is made only when read (`piecedText`): the hot path writes the pieces and never asks.
 */
export type JsonText =
  | { ok: true; readonly text: string; pieces?: readonly JsonPiece[] }
  | { ok: false; problem: string };

/**
 * A JSON text given as its pieces; its `text`, when read, is their concatenation (made once). A
 * class, not an object literal with a getter: made per answer, the literal cost 3.6 ms more a
 * call of a 1 MiB document's lines (in V8's collector, `--cpu-prof` of the encoder alone).
 */
class PiecedText {
  readonly ok = true;
  #text: string | undefined;
  constructor(readonly pieces: readonly JsonPiece[]) {}
  get text(): string {
    this.#text ??= concatenated(this.pieces);
    return this.#text;
  }
}

/** A JSON text given as its pieces (see PiecedText). */
export function piecedText(pieces: readonly JsonPiece[]): JsonText & { ok: true } {
  return new PiecedText(pieces);
}

/** A JSON text's length in UTF-16 code units, bytes for its byte pieces: a close bound on its bytes, read without making it. */
export function jsonLength(json: JsonText & { ok: true }): number {
  if (json.pieces === undefined) return json.text.length;
  let length = 0;
  for (const piece of json.pieces) length += piece.length;
  return length;
}

/** A result already encoded by whoever produced it (tools/call), handed to the router as such. */
export class EncodedResult {
  constructor(
    readonly value: unknown,
    readonly json: JsonText & { ok: true },
  ) {}
}

/** Where a message that could not be encoded is reported (the server log). */
export type EncodingReport = (detail: string) => void;

/**
 * A message's text, when already known, carried on the message under a symbol key as its pieces
 * (the envelope's head, the result's own text or pieces, the closing brace): JSON.stringify and
 * every reader of the message's fields ignore symbol keys, and unlike a WeakMap keyed by message it
 * gives the garbage collector no ephemeron table to walk at tens of thousands of calls/s.
 */
const KNOWN_CHUNKS: unique symbol = Symbol('weft.encodedChunks');
type WithKnownText = { [KNOWN_CHUNKS]?: readonly JsonPiece[] };

/**
 * Pieces of a text as one string, made by concatenation: V8 keeps it as a rope of the pieces, so
 * large string pieces are referenced, not copied (reading it as a whole, a slice or a search,
 * flattens it); byte pieces are decoded.
 */
export function concatenated(pieces: readonly JsonPiece[]): string {
  let text = '';
  for (const piece of pieces) text += typeof piece === 'string' ? piece : piece.toString('utf8');
  return text;
}

/** Encodes any value as JSON text; never throws. */
export function encodeJson(value: unknown): JsonText {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    return { ok: false, problem: whyNotJson(value, error) };
  }
  if (text === undefined) return { ok: false, problem: `it is ${describe(value)}, which JSON cannot carry` };
  return { ok: true, text };
}

/**
 * A success response whose result text is already known, so encoding it costs no second
 * stringify: its chunks are the envelope's head, the result's text (or pieces) and the closing brace.
 */
export function encodedSuccess(
  id: RequestId,
  result: unknown,
  json: JsonText & { ok: true },
): JsonRpcSuccess {
  const head = `{"jsonrpc":"2.0","id":${typeof id === 'number' ? id : JSON.stringify(id)},"result":`;
  const message: JsonRpcSuccess & WithKnownText = {
    jsonrpc: '2.0',
    id,
    result,
    [KNOWN_CHUNKS]: json.pieces === undefined ? [head, json.text, '}'] : [head, ...json.pieces, '}'],
  };
  return message;
}

/**
 * The JSON text of a message as chunks to write one after the other. A response whose result text
 * is known comes as its head, that text and the closing brace: written so, a large result goes to
 * the socket as the very string JSON.stringify made, where the joined text would first be copied
 * whole into a new flat string (a third of the CPU of a 1 MiB answer over stdio, issue 39).
 */
export function encodeMessageChunks(
  message: JsonRpcMessage | JsonRpcMessage[],
  report: EncodingReport,
): readonly JsonPiece[] | undefined {
  const chunks = Array.isArray(message) ? undefined : (message as WithKnownText)[KNOWN_CHUNKS];
  if (chunks !== undefined) return chunks;
  const text = encodeMessage(message, report);
  return text === undefined ? undefined : [text];
}

/**
 * The JSON text of a message or a batch, or undefined when nothing of it can be sent. Never throws:
 * an unencodable response becomes -32603 under its id, an unencodable notification or request is
 * dropped; both are reported.
 */
export function encodeMessage(
  message: JsonRpcMessage | JsonRpcMessage[],
  report: EncodingReport,
): string | undefined {
  if (!Array.isArray(message)) return encodeOne(message, report);
  const parts: string[] = [];
  for (const member of message) {
    const text = encodeOne(member, report);
    if (text !== undefined) parts.push(text);
  }
  return parts.length === 0 ? undefined : `[${parts.join(',')}]`;
}

function encodeOne(message: JsonRpcMessage, report: EncodingReport): string | undefined {
  const known = (message as WithKnownText)[KNOWN_CHUNKS];
  if (known !== undefined) return concatenated(known);
  const encoded = encodeJson(message);
  if (encoded.ok) return encoded.text;
  const isResponse = typeof message === 'object' && message !== null && !('method' in message);
  if (isResponse && 'id' in message) {
    const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
    report(
      `weft: the answer to request ${JSON.stringify(id)} cannot be sent as JSON (${encoded.problem}); the client gets -32603 instead`,
    );
    return JSON.stringify({
      jsonrpc: '2.0',
      id,
      error: { code: ErrorCode.InternalError, message: 'Internal error' },
    });
  }
  const method = (message as { method?: unknown })?.method;
  report(
    `weft: dropped an outgoing ${typeof method === 'string' ? method : 'message'} that cannot be sent as JSON (${encoded.problem})`,
  );
  return undefined;
}

/** Says what made JSON.stringify fail, in words a tool author can act on. */
function whyNotJson(value: unknown, error: unknown): string {
  const message = oneLine(error instanceof Error ? error.message : String(error));
  if (error instanceof TypeError && /BigInt/.test(message)) {
    const at = findBigInt(value);
    if (at !== undefined)
      return `a BigInt at ${at} (JSON has no BigInt: convert it with String() or Number())`;
  }
  if (error instanceof TypeError && message.startsWith('Converting circular structure')) {
    const where = message
      .replace(/^Converting circular structure to JSON\s*/, '')
      .replace(/\s*(-->|---|\|)\s*/g, ', ')
      .replace(/^, /, '');
    return `it refers to itself (${where})`;
  }
  if (error instanceof RangeError && /call stack/i.test(message)) {
    return 'it is nested too deeply to serialize';
  }
  if (error instanceof RangeError && /string length/i.test(message)) {
    return 'it is too large to be one JSON text';
  }
  return `serializing it threw: ${message}`;
}

/**
 * Where the first BigInt is, as a path ("content[0].text"), found by serializing again with a
 * replacer that tracks each value's path. Runs only after a failure, never on the hot path.
 */
function findBigInt(value: unknown): string | undefined {
  const paths = new WeakMap<object, string>();
  let found: string | undefined;
  try {
    JSON.stringify(value, function track(this: object, key: string, child: unknown) {
      if (found !== undefined) return undefined;
      const base = paths.get(this);
      const path =
        base === undefined
          ? ''
          : Array.isArray(this)
            ? `${base}[${key}]`
            : base === ''
              ? key
              : `${base}.${key}`;
      if (typeof child === 'bigint') {
        found = path || 'the top level';
        return undefined;
      }
      if (typeof child === 'object' && child !== null) paths.set(child, path);
      return child;
    });
  } catch {
    // Another problem (a cycle, a throwing getter) stopped the walk first; the caller names it.
  }
  return found;
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return 'a symbol';
  return `a ${typeof value}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
