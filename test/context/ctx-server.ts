/** The ctx tests' server on stdio, for the official SDK client. */
import { McpServer } from '../../lib/index.js';
import {
  addFromWorker,
  askInProcess,
  echoText,
  fanOutInline,
  fanOutProcess,
  fanOutThread,
  readFromProcess,
} from './ctx-tools.js';

export function ctxServer(): McpServer {
  return new McpServer({ name: 'weft-ctx', version: '0.0.0', pool: { maxThreads: 2 }, timeoutMs: 20_000 })
    .tool(askInProcess)
    .tool(echoText)
    .tool(fanOutInline)
    .tool(fanOutThread)
    .tool(fanOutProcess)
    .tool(addFromWorker)
    .tool(readFromProcess)
    .resource({ uri: 'app://greeting', name: 'greeting', tags: ['greeting'], read: () => 'hello there' })
    .prompt({
      name: 'hello',
      tags: ['greeting'],
      arguments: [{ name: 'who', required: true }],
      get: ({ who }) => `Hello, ${who}`,
    })
    .prompt({ name: 'untagged', get: () => 'plain' });
}

if (process.argv[2] === 'stdio') await ctxServer().listen({ stdio: true });
