/**
 * A pool thread's long result strings cross to the main thread as the bytes JSON writes for them,
 * moved, not cloned, and stay bytes there until someone reads them.
 *
 * Posted as it is, a result's 8 MiB string is copied three times on its way out: serialized by
 * the thread, deserialized into the main heap (V8's large-object space, which only a full
 * collection frees), and encoded into the answer's frame by the transport. With 8 answers of 8 MiB
 * in flight over HTTP the main heap held 150-190 MiB of strings already sent (issue 39). Here the
 * thread writes the string's JSON form once (as it is for base64 and plain ASCII, escaped by
 * json-escape.ts otherwise) into a buffer of its own, which changes owner with the message; the main
 * thread's encoder takes those bytes as a piece of the answer (result-encoding.ts) and the
 * transports write them to the socket as they are (transports/chunk-bytes.ts). No string of them
 * is ever made on the main thread unless its code asks for one.
 *
 * For that code (middleware, observers, a task store, a JSON.stringify), the field is an accessor
 * that decodes the bytes on first read and becomes a plain string field from then on, as does one
 * written to; only a field nobody touched goes out as bytes. The handler's own objects never cross
 * (the thread posts copies of what it changed), and pool processes keep posting plain values.
 */
import { escapedJsonBytes } from '../protocol/json-escape.js';
import { isJsonVerbatim, isPlainBase64 } from '../protocol/plain-text.js';
import { type StringSlot, stringSlotOf, withSlotReplaced } from './long-strings.js';

/**
 * Strings shorter than this are cloned with the rest of the result. Moving costs a buffer of its
 * own on each side, an accessor on the main thread, and memory outside the heap that V8 collects
 * less eagerly; it saves two copies. At 100 KiB that bought nothing measurable (a document's lines
 * on a thread over stdio, fresh servers, server CPU: 1,044-1,225 us a call moved, 1,030-1,347
 * cloned), and the payload scenario read those points over SDK + Piscina's more often moved; from
 * 1 MiB up it is a clear gain (8 MiB results on a thread: 0.19-0.57 of the peer's CPU, the HTTP
 * peak 257-265 MiB against 420-422). Half a megabyte sits between the two.
 */
export const MOVED_STRING_MIN_CHARS = 512 * 1024;

/** One string moved out of a result: where it was, and its JSON text (between the quotes) as UTF-8. */
export interface MovedString {
  /** Index of its content block. */
  block: number;
  /** The field that held it: the block's own, or its embedded resource's. */
  field: string;
  bytes: ArrayBuffer;
  /** How many of `bytes` are the text (the buffer may be longer). */
  length: number;
  /** The bytes are the string with escapes, not the string itself (a document's newlines, quotes). */
  escaped: boolean;
  /** The thread proved the string canonical base64 (an image's data): the main thread's check is done. */
  base64: boolean;
}

/** A result as it crosses: copies of the blocks whose strings left, with an empty string in their place. */
export interface MovedOut {
  value: unknown;
  moved: MovedString[];
}

type Fields = Record<string, unknown>;

/** Thread side: `value` with its content blocks' long strings taken out as bytes (`moved` empty when none was). */
export function moveLongStrings(value: unknown): MovedOut {
  const moved: MovedString[] = [];
  const content = (value as { content?: unknown } | null)?.content;
  if (!Array.isArray(content)) return { value, moved };
  let copied: unknown[] | undefined;
  for (let index = 0; index < content.length; index++) {
    const block = content[index] as Fields;
    const slot = stringSlotOf(block);
    const text = slot?.holder[slot.field];
    if (slot === undefined || typeof text !== 'string' || text.length < MOVED_STRING_MIN_CHARS) continue;
    const json = jsonBytes(text, slot.field === 'data' || slot.field === 'blob');
    if (json === undefined) continue;
    moved.push({ block: index, field: slot.field, ...json });
    copied ??= content.slice();
    copied[index] = withSlotReplaced(block, slot, '');
  }
  if (copied === undefined) return { value, moved };
  return { value: { ...(value as object), content: copied }, moved };
}

/** The string's JSON text in a buffer of its own, or undefined when JSON.stringify must write it (a lone surrogate). */
function jsonBytes(text: string, binaryField: boolean) {
  const base64 = binaryField && isPlainBase64(text);
  if (base64 || isJsonVerbatim(text)) {
    // Both are ASCII: a byte a character.
    const bytes = Buffer.allocUnsafeSlow(text.length);
    bytes.write(text, 0, text.length, 'latin1');
    return { bytes: bytes.buffer as ArrayBuffer, length: text.length, escaped: false, base64 };
  }
  const escaped = escapedJsonBytes(text);
  if (escaped === undefined) return undefined;
  return { bytes: escaped.buffer as ArrayBuffer, length: escaped.length, escaped: true, base64: false };
}

/** A moved string's bytes, on the main thread, while its field is untouched. */
export interface MovedPiece {
  field: string;
  /** The JSON text between the quotes. */
  bytes: Buffer;
  escaped: boolean;
  base64: boolean;
}

/** The pieces of fields nobody has read or written yet, by the object holding them. */
const untouched = new WeakMap<object, MovedPiece>();

/** Main thread side: the result's moved strings put back, each as a field that reads its bytes when asked. */
export function receiveMovedStrings(value: unknown, moved: readonly MovedString[]): void {
  const content = (value as { content: unknown[] }).content;
  for (const string of moved) {
    const holder = holderOf(content[string.block]);
    if (holder === undefined) continue;
    untouched.set(holder, {
      field: string.field,
      bytes: Buffer.from(string.bytes, 0, string.length),
      escaped: string.escaped,
      base64: string.base64,
    });
    Object.defineProperty(holder, string.field, {
      get: readMoved,
      set: writeMoved,
      enumerable: true,
      configurable: true,
    });
  }
}

/**
 * The object holding a block's long string (the block, or its embedded resource), found without
 * reading the string's field; undefined when there is none to hold one.
 */
function holderOf(block: unknown): Fields | undefined {
  if (typeof block !== 'object' || block === null) return undefined;
  const holder = (block as Fields).type === 'resource' ? (block as Fields).resource : block;
  return typeof holder === 'object' && holder !== null ? (holder as Fields) : undefined;
}

/** The moved piece `holder` keeps in `field`, when nobody has read or written that field since it arrived. */
export function movedPiece(holder: object, field: string): MovedPiece | undefined {
  const piece = untouched.get(holder);
  return piece?.field === field ? piece : undefined;
}

/** The block's moved piece and where it is (the block, or its embedded resource), while untouched. */
export function movedSlotIn(block: Fields): { slot: StringSlot; piece: MovedPiece } | undefined {
  const holder = holderOf(block);
  const piece = holder && untouched.get(holder);
  return piece && { slot: { holder: holder!, field: piece.field }, piece };
}

/** First read of a moved field: its string, kept from then on as the field's plain value. */
function readMoved(this: Fields): string {
  const piece = untouched.get(this)!;
  const text = piece.escaped
    ? (JSON.parse(`"${piece.bytes.toString('utf8')}"`) as string)
    : piece.bytes.toString('latin1');
  settle(this, piece.field, text);
  return text;
}

function writeMoved(this: Fields, value: unknown): void {
  settle(this, untouched.get(this)!.field, value);
}

function settle(holder: Fields, field: string, value: unknown): void {
  untouched.delete(holder);
  Object.defineProperty(holder, field, { value, writable: true, enumerable: true, configurable: true });
}
