/**
 * One router replica for the fleet tests: the fleet tools on the fleet at REDIS_URL (queue QUEUE),
 * tasks in the same Redis (short leases), HTTP on a free port, both eras. Prints
 * `fleet router: <url>` on stderr once it listens. TIMEOUT_MS sets the server-wide deadline.
 */
import { McpServer, RedisTaskStore } from '../../lib/index.js';
import * as tools from './fleet-tools.js';

const url = process.env.REDIS_URL;
if (!url) throw new Error('fleet-router needs REDIS_URL');

const server = new McpServer({
  name: 'weft-fleet-router',
  version: '1.0.0',
  pool: { maxThreads: 1, niceIncrement: 0 },
  timeoutMs: Number(process.env.TIMEOUT_MS ?? 0),
  requestStateKey: process.env.STATE_KEY ?? 'ZmxlZXQtdGVzdC1zdGF0ZS1rZXktMDEyMzQ1Njc4OWFi',
  fleet: { redis: url, queue: process.env.QUEUE ?? 'weft-test', checkIntervalMs: 250 },
  tasks: {
    store: new RedisTaskStore({ url, leaseMs: Number(process.env.LEASE_MS ?? 1_500) }),
    pollIntervalMs: 200,
  },
});
for (const tool of Object.values(tools)) server.tool(tool);
await server.listen({ http: { port: 0 } });
process.stderr.write(`fleet router: http://127.0.0.1:${server.addresses.http?.port}/mcp\n`);
