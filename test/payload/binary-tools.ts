/**
 * Tools that return bytes the way image, audio and file libraries hand them back, run inline, in a
 * pool thread and in a pool process: a PNG as a bare Buffer, bytes of no known format, and content
 * built with the helpers. Each is its own definition with `module: import.meta.url`, as users write
 * them.
 */
import { audioContent, blobResource, defineTool, imageContent } from '../../lib/tool.js';

/** A 1x1 PNG, a WAV header and a PDF header: real signatures, which is all the bytes rule reads. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
export const WAV = Buffer.concat([Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ', 'latin1'), Buffer.alloc(16)]);
export const PDF = Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1');

const noArgs = { type: 'object', properties: {} } as const;
type Where = 'inline' | 'thread' | 'process';
const placement = (where: Where) =>
  where === 'inline'
    ? {}
    : {
        blocking: true as const,
        module: import.meta.url,
        ...(where === 'process' ? { isolation: 'process' as const } : {}),
      };

const pngTool = (where: Where) =>
  defineTool({
    name: `png_${where}`,
    description: 'Returns a PNG as a bare Buffer',
    inputSchema: noArgs,
    ...placement(where),
    // A copy: a Buffer of its own, not a slice of Node's shared pool.
    handler: () => Buffer.from(PNG),
  });

const unknownBytesTool = (where: Where) =>
  defineTool({
    name: `unknown_bytes_${where}`,
    description: 'Returns bytes of no format a client shows, as an ArrayBuffer',
    inputSchema: noArgs,
    ...placement(where),
    handler: () => new Uint8Array([1, 2, 3, 4, 5]).buffer,
  });

const helpersTool = (where: Where) =>
  defineTool({
    name: `helpers_${where}`,
    description: 'Returns an image, an audio clip and a PDF built with the content helpers',
    inputSchema: noArgs,
    ...placement(where),
    handler: () => ({
      content: [
        imageContent(PNG, 'image/png'),
        audioContent(new Uint8Array(WAV), 'audio/wav'),
        blobResource(PDF, { uri: 'file:///report.pdf', mimeType: 'application/pdf' }),
      ],
    }),
  });

export const pngInline = pngTool('inline');
export const pngThread = pngTool('thread');
export const pngProcess = pngTool('process');
export const unknownBytesInline = unknownBytesTool('inline');
export const unknownBytesThread = unknownBytesTool('thread');
export const unknownBytesProcess = unknownBytesTool('process');
export const helpersInline = helpersTool('inline');
export const helpersThread = helpersTool('thread');
export const helpersProcess = helpersTool('process');

/** A Proxy over plain data: every read looks plain, yet it cannot be copied out of a thread. */
export const proxyThread = defineTool({
  name: 'proxy_thread',
  description: 'Returns a Proxy of a plain object, from a pool thread',
  inputSchema: noArgs,
  ...placement('thread'),
  handler: () => new Proxy({ content: [{ type: 'text', text: 'hidden' }] }, {}),
});
