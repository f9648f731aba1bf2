/**
 * The server the answer-size suite talks to: a tool whose answer is as large as asked, which
 * reports progress first when the caller asks for it (so a 2026-07-28 HTTP answer goes out on an
 * SSE stream rather than as JSON), inline and on a pool thread (whose long answer leaves the thread
 * as bytes). Run as a script it serves stdio; imported, it is built in process for HTTP and
 * WebSocket.
 */
import { McpServer } from '../../lib/index.js';
import { large, largeArgs, largeBlocking, MIB } from './large-answer.js';

export { answerText, MIB } from './large-answer.js';

export function largeAnswerServer(): McpServer {
  return new McpServer({ name: 'large-answers', version: '1', maxResultBytes: 128 * MIB })
    .tool({
      name: 'large',
      description: 'Answers with a text of `mib` MiB (a document of lines when `document`)',
      inputSchema: largeArgs,
      handler: large,
    })
    .tool(largeBlocking);
}

if (process.argv[2] === '--stdio') await largeAnswerServer().listen({ stdio: true, handleSignals: false });
