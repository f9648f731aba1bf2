/**
 * The large answer of the answer-size suite and the tool that makes it on a pool thread (a module
 * of its own: each pool thread imports it, and must not build the server again).
 */
import { defineTool, type ToolContext } from '../../lib/tool.js';

export const MIB = 1024 * 1024;

/**
 * The answer's text: `x`s (which JSON writes as they are), or a document's lines (quotes, a tab, a
 * backslash, non-ASCII letters and a newline every line: escaped on the way out).
 */
export function answerText(mib: number, document: boolean): string {
  if (!document) return 'x'.repeat(mib * MIB);
  const line = 'A line of a "document",\ta naïve café, a \\ backslash.\n';
  return line.repeat(Math.ceil((mib * MIB) / line.length)).slice(0, mib * MIB);
}

export const largeArgs = {
  type: 'object',
  properties: { mib: { type: 'number' }, document: { type: 'boolean' } },
  required: ['mib'],
} as const;

export async function large(args: { mib: number; document?: boolean }, ctx: ToolContext): Promise<string> {
  // A turn later, so that HTTP answers on a stream (legacy) or opens one at the progress (modern).
  await new Promise((resolve) => setTimeout(resolve, 10));
  ctx.progress(0, 1, 'building the answer');
  return answerText(args.mib, args.document === true);
}

export const largeBlocking = defineTool({
  name: 'large_blocking',
  description: 'Answers from a pool thread with a text of `mib` MiB (a document of lines when `document`)',
  inputSchema: largeArgs,
  blocking: true,
  module: import.meta.url,
  handler: large,
});
