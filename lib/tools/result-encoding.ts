/**
 * A checked CallToolResult as JSON text in pieces, with its long strings left as they are.
 *
 * JSON.stringify copies every string it writes, escaping it on the way: for an 8 MiB image that is
 * a whole second string of 8 MiB, built at 2.8-3.5 ns a byte on Node 20, most of what sending the
 * answer costs (issue 39). A string that needs no escaping (canonical base64 always, a text without
 * quotes, backslashes or control characters) can go out as it is. So the blocks' long strings that
 * qualify are set aside, the rest of the result is stringified with a marker in their place, and
 * the text comes back as pieces: the JSON around each marker, and each string itself between them.
 * Transports encode the pieces one after the other into the answer's bytes (chunk-bytes.ts), so
 * the long string is read once, from the very string the handler returned.
 *
 * A long string that does need escaping (a document's text: newlines, quotes, tabs) is escaped by
 * json-escape.ts instead (a quarter of JSON.stringify's cost), and its escaped parts are its pieces.
 * A string a pool thread moved over as its JSON bytes (moved-strings.ts) is one piece: those bytes.
 */
import { randomUUID } from 'node:crypto';
import { escapedJson } from '../protocol/json-escape.js';
import { encodeJson, type JsonPiece, type JsonText, piecedText } from '../protocol/message-encoding.js';
import { isJsonVerbatim } from '../protocol/plain-text.js';
import type { CallToolResult } from './content.js';
import { LONG_STRING_MIN_CHARS, longStringIn, stringSlotOf, withSlotReplaced } from './long-strings.js';
import { movedSlotIn } from './moved-strings.js';

/**
 * Long strings the result check proved canonical base64, by the block (or embedded resource) that
 * holds them. The check scans an image's base64 (result-check.ts), and whether JSON may write it as
 * it is would be that scan again, and more (3.2-3.4 ms of an 8 MiB image on Node 20). A proof counts
 * only for the very string proved, compared by identity (by content, should a getter hand back an
 * equal copy), so a holder changed since is scanned again; it is forgotten with its holder. Only
 * long strings are noted: the encoder asks about no others, and each entry costs the collector.
 */
const provedPlain = new WeakMap<object, string>();

/** The result check proved `text`, held by `holder`, canonical base64. */
export function noteProvedPlain(holder: object, text: string): void {
  if (text.length >= LONG_STRING_MIN_CHARS) provedPlain.set(holder, text);
}

/**
 * What stands in for a set-aside string while the rest is stringified: a token no handler can
 * guess (a per-process UUID), which JSON writes as it is. Should a result nonetheless carry it, or
 * a `toJSON` hide the stand-in, the markers found do not match the strings set aside, and the
 * result is stringified whole instead.
 */
const MARKER = `weft-verbatim-${randomUUID()}-`;

type Fields = Record<string, unknown>;

/**
 * A string set aside: as it is (JSON writes it so), its escaped characters in parts, or the bytes
 * a pool thread made of it (moved-strings.ts).
 */
type SetAside = string | readonly string[] | Buffer;

/** The result's JSON text, in pieces when it has long strings (set aside as they are, or escaped). */
export function encodeToolResult(result: CallToolResult): JsonText {
  const setAside: SetAside[] = [];
  const content = result.content;
  let standIns: unknown[] | undefined;
  for (let index = 0; index < content.length; index++) {
    const block = content[index] as unknown as Fields;
    const standIn = withoutLongStrings(block, setAside);
    if (standIn === block) continue;
    standIns ??= content.slice();
    standIns[index] = standIn;
  }
  if (standIns === undefined) return encodeJson(result);
  const json = encodeJson({ ...result, content: standIns });
  if (!json.ok) return json;
  return splitAtMarkers(json.text, setAside) ?? encodeJson(result);
}

/** The block with its long string replaced by a marker (the string pushed to `setAside`), or itself. */
function withoutLongStrings(block: Fields, setAside: SetAside[]): Fields {
  // Moved over as bytes and untouched since: the bytes are its JSON text already.
  const moved = movedSlotIn(block);
  if (moved !== undefined) {
    setAside.push(moved.piece.bytes);
    return withSlotReplaced(block, moved.slot, `${MARKER}${setAside.length - 1}`);
  }
  const slot = stringSlotOf(block);
  const value = slot && longStringIn(slot);
  if (slot === undefined || value === undefined) return block;
  const piece = provedPlain.get(slot.holder) === value || isJsonVerbatim(value) ? value : escapedJson(value);
  if (piece === undefined) return block;
  setAside.push(piece);
  return withSlotReplaced(block, slot, `${MARKER}${setAside.length - 1}`);
}

/**
 * The text cut at each marker, with the set-aside string (or its escaped parts) in its place:
 * `["{...\"text\":\"", long, "\"}]}"]`. Undefined unless the markers appear exactly once each, in
 * order.
 */
function splitAtMarkers(text: string, setAside: readonly SetAside[]): JsonText | undefined {
  const pieces: JsonPiece[] = [];
  let from = 0;
  for (let index = 0; index < setAside.length; index++) {
    const marker = `"${MARKER}${index}"`;
    const at = text.indexOf(marker, from);
    if (at === -1) return undefined;
    pieces.push(text.slice(from, at + 1));
    const string = setAside[index]!;
    if (typeof string === 'string' || Buffer.isBuffer(string)) pieces.push(string);
    else for (const part of string) pieces.push(part);
    from = at + marker.length - 1;
  }
  if (text.includes(MARKER, from)) return undefined;
  pieces.push(text.slice(from));
  return piecedText(pieces);
}
