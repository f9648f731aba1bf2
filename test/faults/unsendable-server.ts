/**
 * A server for the unsendable-results tests: the three tools of unsendable-values.ts and an echo,
 * served at once over stdio, Streamable HTTP and WebSocket (ports chosen by the system and printed
 * on stderr), so one process answers the same calls on every transport.
 *
 *   node dist/test/faults/unsendable-server.js
 */
import { McpServer } from '../../lib/index.js';
import { UNSENDABLE_TOOLS } from './unsendable-values.js';

const server = new McpServer({ name: 'weft-unsendable', version: '0.0.0', pool: { maxThreads: 2 } });
for (const { tool } of UNSENDABLE_TOOLS) server.tool(tool);
server.tool({
  name: 'echo',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  handler: ({ text }) => text,
});

await server.listen({ stdio: true, http: { port: 0 }, ws: { port: 0 } });
const { http, ws } = server.addresses;
process.stderr.write(`unsendable server: http://127.0.0.1:${http!.port}/mcp ws://127.0.0.1:${ws!.port}\n`);
