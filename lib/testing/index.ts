/// <reference types="node" preserve="true" />
// Kept in the emitted .d.ts: its types name node:http and friends, and TypeScript 7 loads no
// @types package unless something asks for it (TS2591 without "types": ["node"] in tsconfig).
/**
 * `weft-mcp/testing`: a client connected to your server in the same process, for your own tests.
 *
 *   const client = await connectInMemory(server);                  // the era is probed, like a real client
 *   const client = await connectInMemory(server, { protocol: 'modern' });   // 2026-07-28, stateless
 *   const result = await client.callTool('fib', { n: 30 });        // a ToolCallResult: typed content
 *   await client.close();
 *
 * The client is weft's own McpClient (`weft-mcp/client`) over a MemoryClientTransport: the same
 * requests, eras, progress, cancels and questions (elicitation, sampling, roots) as over a socket.
 */
import { McpClient, type McpClientOptions } from '../client/mcp-client.js';
import type { McpServer } from '../server.js';
import { MemoryClientTransport, type MemoryTransportOptions } from './memory-transport.js';

export type { ContentBlock, ProgressUpdate, ToolCallResult } from '../client/index.js';
export { MemoryClientTransport, type MemoryTransportOptions } from './memory-transport.js';

/** A connected McpClient on `server` (handshake done); `principal` is who the server sees calling. */
export function connectInMemory(
  server: McpServer,
  options: McpClientOptions & MemoryTransportOptions = {},
): Promise<McpClient> {
  const { principal, ...clientOptions } = options;
  const transport = new MemoryClientTransport(server, principal === undefined ? {} : { principal });
  return new McpClient(transport, clientOptions).connect();
}
