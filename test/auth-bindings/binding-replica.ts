/**
 * One replica of the replicas-and-fleet binding suite: the token hook over HTTP (both eras), tasks
 * in the Redis at REDIS_URL, blocking calls on the fleet queue QUEUE, the shared requestStateKey
 * STATE_KEY. Prints `binding replica listening on PORT` on stdout.
 */
import { McpServer, RedisTaskStore } from '../../lib/index.js';
import { fleetWhoami, localAsk } from './binding-fleet-tools.js';
import { tokenAuth } from './token-principals.js';

const url = process.env.REDIS_URL;
const key = process.env.STATE_KEY;
if (!url || !key) throw new Error('binding-replica needs REDIS_URL and STATE_KEY');

const server = new McpServer({
  name: 'weft-binding-replica',
  version: '1.0.0',
  pool: { maxThreads: 1, niceIncrement: 0 },
  requestStateKey: key,
  fleet: { redis: url, queue: process.env.QUEUE ?? 'weft-bindings', checkIntervalMs: 250 },
  tasks: { store: new RedisTaskStore({ url, leaseMs: 1_500 }), pollIntervalMs: 100 },
});
server.tool(fleetWhoami).tool(localAsk);
await server.listen({ http: { port: 0, auth: tokenAuth() } });
process.stdout.write(`binding replica listening on ${server.addresses.http?.port}\n`);
