/**
 * A fleet router for the close test: the fleet and the task store both on the Redis at REDIS_URL,
 * HTTP on a free port, no signal handling. It closes the server when its stdin ends and then does
 * nothing else, so the process ends only if close() left nothing running (no process.exit).
 * Prints `listening` on stderr once it listens and `closed` once close() resolved.
 */
import { McpServer, RedisTaskStore } from '../../lib/index.js';
import * as tools from './fleet-tools.js';

const url = process.env.REDIS_URL;
if (!url) throw new Error('closing-router needs REDIS_URL');

const server = new McpServer({
  name: 'weft-closing-router',
  version: '1.0.0',
  pool: { maxThreads: 1 },
  fleet: { redis: url, queue: 'weft-close-test', checkIntervalMs: 250 },
  tasks: { store: new RedisTaskStore({ url }) },
});
for (const tool of Object.values(tools)) server.tool(tool);
await server.listen({ http: { port: 0, host: '127.0.0.1' }, handleSignals: false });
process.stderr.write('listening\n');
process.stdin.resume();
process.stdin.once('end', () => {
  void server.close().then(() => process.stderr.write('closed\n'));
});
