/**
 * The children storm's tools served over stdio, for the test of a server that stops while its
 * calls are starting processes: `node dist/test/storm/child-spawning-server.js`.
 */
import { McpServer } from '../../lib/index.js';
import { CHILD_SPAWNING_TOOLS } from './child-spawning-tools.js';

const server = new McpServer({ name: 'child-spawning', version: '0.0.0', shutdownGraceMs: 200 });
for (const tool of CHILD_SPAWNING_TOOLS) server.tool(tool);
await server.listen({ stdio: true });
