/**
 * A pool thread's result crosses to the main thread with its long ASCII strings as bytes, moved,
 * not cloned.
 *
 * Posted as they are, the result's strings are cloned into the main thread's heap, and one of
 * megabytes lands in V8's large-object space, which only a full collection frees: with 8 answers
 * of 8 MiB in flight over HTTP, the main heap held 150-190 MiB, mostly such strings already sent
 * (issue 39). Handed over instead, a long string's characters go as one ArrayBuffer (transferred:
 * it changes owner, no copy), and the main thread reads them back as Latin-1, which Node makes an
 * external string from a megabyte up: its characters live outside the heap and count as external
 * memory, whose growth starts a collection far sooner. Same run: main heap 29-45 MiB.
 *
 * Only ASCII goes so (every base64, most text), where a Latin-1 byte is a character: the check is
 * a UTF-8 length equal to the string's. Other strings are cloned as before. Only the long string
 * of each content block (long-strings.ts) and a bare string result are handed over; the handler's
 * own objects are never changed (copies carry an empty string where the bytes left). Pool
 * processes do not hand over: nothing moves between processes without a copy.
 */
import {
  LONG_STRING_MIN_CHARS,
  longStringIn,
  stringSlotOf,
  withSlotReplaced,
} from '../tools/long-strings.js';

/** One string handed over: where it was (a content block's index, or -1: the result itself) and its bytes. */
export interface HandedString {
  block: number;
  bytes: ArrayBuffer;
}

/** A result as it crosses: its value with empty strings where `strings` were taken out. */
export interface HandedOver {
  value: unknown;
  strings: HandedString[];
}

/** `value` with its long ASCII strings taken out as bytes (thread side); `strings` empty when none was. */
export function handOver(value: unknown): HandedOver {
  const strings: HandedString[] = [];
  if (typeof value === 'string') {
    const bytes = asciiBytes(value);
    if (bytes === undefined) return { value, strings };
    strings.push({ block: -1, bytes });
    return { value: '', strings };
  }
  const content = (value as { content?: unknown } | null)?.content;
  if (!Array.isArray(content)) return { value, strings };
  let copied: unknown[] | undefined;
  for (let index = 0; index < content.length; index++) {
    const block = content[index] as Record<string, unknown>;
    const slot = stringSlotOf(block);
    const long = slot && longStringIn(slot);
    const bytes = long === undefined ? undefined : asciiBytes(long);
    if (slot === undefined || bytes === undefined) continue;
    strings.push({ block: index, bytes });
    copied ??= content.slice();
    copied[index] = withSlotReplaced(block, slot, '');
  }
  if (copied === undefined) return { value, strings };
  return { value: { ...(value as object), content: copied }, strings };
}

/** The result as the handler returned it, its strings read back from their bytes (main thread side). */
export function takeOver(value: unknown, strings: readonly HandedString[]): unknown {
  for (const { block, bytes } of strings) {
    const text = Buffer.from(bytes).toString('latin1');
    if (block === -1) return text;
    const slot = stringSlotOf((value as { content: unknown[] }).content[block]);
    if (slot !== undefined) slot.holder[slot.field] = text;
  }
  return value;
}

/** A long string's bytes in a buffer of their own (so it can be moved), when it is all ASCII. */
function asciiBytes(text: string): ArrayBuffer | undefined {
  if (text.length < LONG_STRING_MIN_CHARS || Buffer.byteLength(text, 'utf8') !== text.length)
    return undefined;
  const bytes = Buffer.allocUnsafeSlow(text.length);
  bytes.write(text, 0, text.length, 'latin1');
  return bytes.buffer as ArrayBuffer;
}
