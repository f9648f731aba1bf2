/**
 * A fleet router for the close test: the fleet and the task store both on the Redis at REDIS_URL,
 * HTTP on a free port. On SIGTERM it closes the server and then does nothing else (no
 * process.exit), so the process ends only if close() left nothing running.
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
process.once('SIGTERM', () => {
  void server.close().then(() => process.stderr.write('closed\n'));
});
