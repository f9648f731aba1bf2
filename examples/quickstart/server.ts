// server.ts: the landing page's server (README.md embeds this file; test/docs/ runs it).
import { McpServer } from 'weft-mcp';
import fib from './tools/fib.js';

const server = new McpServer({ name: 'quickstart', version: '1.0.0', timeoutMs: 30_000 });

server.tool({
  name: 'echo',
  description: 'Returns its text unchanged',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  handler: async ({ text }) => text, // text: string, inferred from the schema
});

server.tool(fib); // a blocking tool, defined in a module of its own

export default server; // `weft serve` serves it over stdio, HTTP or WebSocket
