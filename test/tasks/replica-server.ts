/**
 * One weft replica for the replicas test: the 2026-07-28 era over HTTP on a free port, tasks in
 * the Redis at REDIS_URL (short leases, so a killed replica is noticed quickly), and the
 * requestStateKey every replica shares (STATE_KEY). It prints `replica listening on PORT`.
 */
import { McpServer } from '../../lib/index.js';
import { RedisTaskStore } from '../../lib/tasks/redis-task-store.js';
import { askTask, spinTask } from './task-tools.js';

const url = process.env.REDIS_URL;
const key = process.env.STATE_KEY;
if (!url || !key) throw new Error('replica-server needs REDIS_URL and STATE_KEY');

const server = new McpServer({
  name: 'weft-replica',
  version: '1.0.0',
  // niceIncrement 0: on a loaded machine a niced spin barely shows up in the CPU figures.
  pool: { maxThreads: 1, graceMs: 50, niceIncrement: 0 },
  requestStateKey: key,
  tasks: {
    store: new RedisTaskStore({ url, leaseMs: Number(process.env.LEASE_MS ?? 1_500) }),
    pollIntervalMs: 200,
  },
});
server.tool(spinTask).tool(askTask);
await server.listen({ http: { port: 0 } });
process.stdout.write(`replica listening on ${server.addresses.http?.port}\n`);
