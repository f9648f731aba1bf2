/**
 * The server of the binary-results suite: every tool of binary-tools.ts. Run with `--stdio` it
 * serves stdio (for the official SDK client); imported, the suite serves it over HTTP in process.
 */
import { McpServer } from '../../lib/index.js';
import * as tools from './binary-tools.js';

export function binaryServer(): McpServer {
  const server = new McpServer({ name: 'binary-results', version: '1', pool: { maxThreads: 1 } });
  for (const tool of [
    tools.pngInline,
    tools.pngThread,
    tools.pngProcess,
    tools.unknownBytesInline,
    tools.unknownBytesThread,
    tools.unknownBytesProcess,
    tools.helpersInline,
    tools.helpersThread,
    tools.helpersProcess,
    tools.proxyThread,
  ])
    server.tool(tool);
  return server;
}

if (process.argv[2] === '--stdio') await binaryServer().listen({ stdio: true, handleSignals: false });
