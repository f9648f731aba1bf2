/**
 * A long string's JSON form written straight into UTF-8 bytes, by a small WebAssembly module.
 *
 * JSON.stringify escapes at 2.2-4 ns a byte on Node 20 and makes a second string as long as the
 * first, which the transport then encodes into bytes once more: for a document of 8 MiB with a
 * newline, a quote or a tab every twenty characters, that is 27-40 ms of one call's CPU, the same
 * for weft as for any server (issue 39). Here the string is encoded into the module's memory once
 * (Node's UTF-8 encoder), escaped sixteen bytes at a time (json-escape.wat), and the escaped bytes
 * copied out: 6.6-8.4 ms for the same text, and no escaped string left for the collector.
 *
 * A string that is not well formed (a lone surrogate) is left to JSON.stringify: it writes one as
 * \udxxx, which UTF-8 cannot carry. Each thread that escapes has its own instance (340 KiB of
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
 * The characters of `text` as JSON writes them between a string's quotes, as UTF-8 bytes in parts
 * of up to ~290 KiB (written one after the other, they are `JSON.stringify(text).slice(1, -1)`
 * encoded), or undefined when the text has a lone surrogate.
 */
export function escapedJsonBytes(text: string): Uint8Array[] | undefined {
  if (!text.isWellFormed()) return undefined;
  escaper ??= instantiated();
  const { memory, escape: escapeInto } = escaper;
  const parts: Uint8Array[] = [];
  for (let from = 0; from < text.length; ) {
    let to = Math.min(from + CHUNK_CHARS, text.length);
    const last = text.charCodeAt(to - 1);
    if (to < text.length && last >= 0xd800 && last <= 0xdbff) to--;
    const chunk = from === 0 && to === text.length ? text : text.slice(from, to);
    const length = memory.write(chunk, INPUT_AT, INPUT_BYTES, 'utf8');
    const end = escapeInto(INPUT_AT, length, OUTPUT_AT);
    const part = Buffer.allocUnsafe(end - OUTPUT_AT);
    memory.copy(part, 0, OUTPUT_AT, end);
    parts.push(part);
    from = to;
  }
  return parts;
}
