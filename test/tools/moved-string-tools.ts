/**
 * Pool-thread tools for the moved-strings suite: each returns a long string in a different place
 * (a text block, an image's data, an embedded resource's blob, a bare string), built from the
 * arguments so the test knows what to expect.
 */
import { defineTool } from '../../lib/tool.js';

const sizeArgs = {
  type: 'object',
  properties: { chars: { type: 'integer' }, line: { type: 'string' } },
  required: ['chars', 'line'],
} as const;

/** `line` repeated to exactly `chars` characters. */
export const longText = (chars: number, line: string) =>
  line.repeat(Math.ceil(chars / line.length)).slice(0, chars);

/** Canonical base64 of `chars` characters (a multiple of four). */
export const longBase64 = (chars: number) => Buffer.alloc((chars / 4) * 3, 0xa7).toString('base64');

export const movedText = defineTool({
  name: 'moved_text',
  inputSchema: sizeArgs,
  blocking: true,
  module: import.meta.url,
  handler: ({ chars, line }) => ({ content: [{ type: 'text' as const, text: longText(chars, line) }] }),
});

export const movedBare = defineTool({
  name: 'moved_bare',
  inputSchema: sizeArgs,
  blocking: true,
  module: import.meta.url,
  handler: ({ chars, line }) => longText(chars, line),
});

export const movedBinary = defineTool({
  name: 'moved_binary',
  inputSchema: sizeArgs,
  blocking: true,
  module: import.meta.url,
  handler: ({ chars }) => ({
    content: [
      { type: 'image' as const, data: longBase64(chars), mimeType: 'image/png' },
      { type: 'resource' as const, resource: { uri: 'file:///blob', blob: longBase64(chars) } },
    ],
  }),
});
