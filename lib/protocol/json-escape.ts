/**
 * A long string's JSON form, escaped by a small WebAssembly module at a quarter of JSON.stringify's
 * cost.
 *
 * JSON.stringify escapes at 2.2-4 ns a byte on Node 20: for a document of 8 MiB with a newline, a
 * quote or a tab every twenty characters, that is 17-20 ms of one call's CPU (27-40 with the
 * encoding that follows), the same for weft as for any server (issue 39). Here the string is
 * encoded into the module's memory 16 Ki characters at a time (Node's UTF-8 encoder), escaped
 * sixteen bytes at a time (json-escape.wat), and each escaped chunk read back as a string (a copy
 * for ASCII; a UTF-8 decode otherwise): 6.6-8.4 ms for the same text, encoded.
 *
 * The chunks come back as strings, not Buffers: they are short-lived and small (under ~100 KiB for
 * ordinary text), so they die in the young generation, where a Buffer's memory is outside the heap
 * and each 64 MiB more of it makes V8 start a full collection. Buffers were measured first: a
 * document's 100 KiB over stdio, 8 in flight, cost 404-532 µs a call (about 250 of them in V8's
 * collector threads) against 230-268 with strings.
 *
 * A string that is not well formed (a lone surrogate) is left to JSON.stringify: it writes one as
 * \udxxx, which UTF-8 cannot carry. Each thread that escapes has its own instance (384 KiB of
 * memory, made on first use).
 */
import { JSON_ESCAPE_MODULE_BASE64 } from './json-escape-module.js';

/** Characters escaped per call into the module; never the first half of a surrogate pair last. */
const CHUNK_CHARS = 16 * 1024;
/** Where a chunk's UTF-8 goes: past the module's tables (bytes 0-47), room for 3 bytes a character. */
const INPUT_AT = 64;
const INPUT_BYTES = CHUNK_CHARS * 3;
/** Where the escaped chunk goes: 6 bytes an input byte at most (\u00xx), plus the module's 16 of slack. */
const OUTPUT_AT = INPUT_AT + INPUT_BYTES;
const OUTPUT_BYTES = INPUT_BYTES * 6 + 16;

interface Escaper {
  /** The module's memory, seen as a Buffer (made after the memory grew: growing detaches it). */
  memory: Buffer;
  escape(source: number, length: number, destination: number): number;
}

/** The part of WebAssembly used here (Node's types declare it only with the DOM's). */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (
    module: object,
  ) => {
    exports: { memory: { buffer: ArrayBuffer; grow(pages: number): number }; escape: Escaper['escape'] };
  };
}

let escaper: Escaper | undefined;

function instantiated(): Escaper {
  const { Module, Instance } = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;
  const { exports } = new Instance(new Module(Buffer.from(JSON_ESCAPE_MODULE_BASE64, 'base64')));
  const pages = Math.ceil((OUTPUT_AT + OUTPUT_BYTES) / 65536);
  exports.memory.grow(pages - exports.memory.buffer.byteLength / 65536);
  return { memory: Buffer.from(exports.memory.buffer), escape: exports.escape };
}

/**
 * The characters of `text` as JSON writes them between a string's quotes, in parts of 16 Ki
 * characters and their escapes (joined, they are `JSON.stringify(text).slice(1, -1)`), or undefined
 * when the text has a lone surrogate.
 */
export function escapedJson(text: string): string[] | undefined {
  const parts: string[] = [];
  const escaped = eachEscapedChunk(text, (memory, end, ascii) => {
    // As many bytes as characters: ASCII, read back byte for byte (the escapes are ASCII too).
    parts.push(memory.toString(ascii ? 'latin1' : 'utf8', OUTPUT_AT, end));
  });
  return escaped ? parts : undefined;
}

/**
 * The same escaped characters as UTF-8 bytes in one buffer of their own, for a pool thread to move
 * to the main thread whole (tools/moved-strings.ts), or undefined when the text has a lone
 * surrogate. The buffer is sized for the text plus an eighth, and grows by half when the escapes
 * need more; the view returned is as long as the escaped text.
 */
export function escapedJsonBytes(text: string): Buffer | undefined {
  let bytes = Buffer.allocUnsafeSlow(Math.ceil(Buffer.byteLength(text, 'utf8') * 1.125) + 64);
  let at = 0;
  const escaped = eachEscapedChunk(text, (memory, end) => {
    const size = end - OUTPUT_AT;
    if (at + size > bytes.length) {
      const bigger = Buffer.allocUnsafeSlow(Math.max(Math.ceil(bytes.length * 1.5), at + size));
      bytes.copy(bigger, 0, 0, at);
      bytes = bigger;
    }
    at += memory.copy(bytes, at, OUTPUT_AT, end);
  });
  return escaped ? bytes.subarray(0, at) : undefined;
}

/**
 * Escapes `text` 16 Ki characters at a time, handing each escaped chunk (the module's memory from
 * OUTPUT_AT to `end`; `ascii` when its input was) to `visit` before the next overwrites it. False,
 * with nothing visited, when the text has a lone surrogate.
 */
function eachEscapedChunk(
  text: string,
  visit: (memory: Buffer, end: number, ascii: boolean) => void,
): boolean {
  if (!text.isWellFormed()) return false;
  escaper ??= instantiated();
  const { memory, escape: escapeInto } = escaper;
  for (let from = 0; from < text.length; ) {
    let to = Math.min(from + CHUNK_CHARS, text.length);
    const last = text.charCodeAt(to - 1);
    if (to < text.length && last >= 0xd800 && last <= 0xdbff) to--;
    const chunk = text.slice(from, to);
    const length = memory.write(chunk, INPUT_AT, INPUT_BYTES, 'utf8');
    visit(memory, escapeInto(INPUT_AT, length, OUTPUT_AT), length === chunk.length);
    from = to;
  }
  return true;
}
