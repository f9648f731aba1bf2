/**
 * The server the answer-size suite talks to: one tool whose answer is as large as asked, which
 * reports progress first when the caller asks for it (so a 2026-07-28 HTTP answer goes out on an
 * SSE stream rather than as JSON). Run as a script it serves stdio; imported, it is built in process
 * for HTTP and WebSocket.
 */
import { McpServer } from '../../lib/index.js';

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

export function largeAnswerServer(): McpServer {
  return new McpServer({ name: 'large-answers', version: '1', maxResultBytes: 128 * MIB }).tool({
    name: 'large',
    description: 'Answers with a text of `mib` MiB (a document of lines when `document`)',
    inputSchema: {
      type: 'object',
      properties: { mib: { type: 'number' }, document: { type: 'boolean' } },
      required: ['mib'],
    },
    handler: async (args: { mib: number; document?: boolean }, ctx) => {
      // A turn later, so that HTTP answers on a stream (legacy) or opens one at the progress (modern).
      await new Promise((resolve) => setTimeout(resolve, 10));
      ctx.progress(0, 1, 'building the answer');
      return answerText(args.mib, args.document === true);
    },
  });
}

if (process.argv[2] === '--stdio') await largeAnswerServer().listen({ stdio: true, handleSignals: false });
