/**
 * Pool-thread tools whose results carry long strings of every kind the string handover meets
 * (lib/engine/string-handover.ts): ASCII that JSON must escape, base64, text with characters past
 * ASCII, and one result object the thread keeps and returns on every call.
 */
import { defineTool } from '../../lib/tool.js';

const KIB = 1024;

/** ASCII a document's way: quotes, backslashes, tabs and newlines, which JSON escapes. */
export const ASCII_DOCUMENT = 'A "quoted" line\\ with\ta tab\n'.repeat((300 * KIB) / 30);
/** Long and not ASCII: accents, a CJK character and an emoji (a surrogate pair). */
export const WIDE_TEXT = 'Ça coûte 5 € — 漢字 🚀\n'.repeat(8 * KIB);
export const IMAGE_BASE64 = Buffer.alloc(200 * KIB, 0xa7).toString('base64');
export const BLOB_BASE64 = Buffer.alloc(100 * KIB, 0x3c).toString('base64');

const noArgs = { type: 'object', properties: {} } as const;
const onThread = { blocking: true as const, module: import.meta.url };

/** Kept by the thread and returned as it is on every call: the handover must leave it whole. */
const kept = {
  content: [
    { type: 'text' as const, text: ASCII_DOCUMENT },
    { type: 'image' as const, data: IMAGE_BASE64, mimeType: 'image/png' },
    { type: 'text' as const, text: 'short' },
    { type: 'text' as const, text: WIDE_TEXT },
    { type: 'resource' as const, resource: { uri: 'file:///a.bin', blob: BLOB_BASE64 } },
    { type: 'resource' as const, resource: { uri: 'file:///a.txt', text: ASCII_DOCUMENT } },
  ],
};

export const keptResult = defineTool({
  name: 'kept_result',
  description: 'Returns the same result object on every call',
  inputSchema: noArgs,
  ...onThread,
  handler: () => kept,
});

export const bareDocument = defineTool({
  name: 'bare_document',
  description: 'Returns a long ASCII document as a bare string',
  inputSchema: noArgs,
  ...onThread,
  handler: () => ASCII_DOCUMENT,
});

export const imageBytes = defineTool({
  name: 'image_bytes',
  description: 'Returns a PNG as bare bytes, which the thread makes base64',
  inputSchema: noArgs,
  ...onThread,
  handler: () => Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(100 * KIB, 9)]),
});
