/**
 * The server the answer-size suite talks to: one tool whose answer is as large as asked, which
 * reports progress first when the caller asks for it (so a 2026-07-28 HTTP answer goes out on an
 * SSE stream rather than as JSON). Run as a script it serves stdio; imported, it is built in process
 * for HTTP and WebSocket.
 */
import { McpServer } from '../../lib/index.js';

export const MIB = 1024 * 1024;

export function largeAnswerServer(): McpServer {
  return new McpServer({ name: 'large-answers', version: '1', maxResultBytes: 128 * MIB }).tool({
    name: 'large',
    description: 'Answers with a text of `mib` MiB',
    inputSchema: { type: 'object', properties: { mib: { type: 'number' } }, required: ['mib'] },
    handler: async (args: { mib: number }, ctx) => {
      // A turn later, so that HTTP answers on a stream (legacy) or opens one at the progress (modern).
      await new Promise((resolve) => setTimeout(resolve, 10));
      ctx.progress(0, 1, 'building the answer');
      return 'x'.repeat(args.mib * MIB);
    },
  });
}

if (process.argv[2] === '--stdio') await largeAnswerServer().listen({ stdio: true, handleSignals: false });
