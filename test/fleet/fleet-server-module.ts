/**
 * A server module as a deployment would write it, for `weft worker` to load: its default export is
 * the McpServer, with a fleet, a Redis task store, fleet tools and one local tool. Building it must
 * not reach Redis (the URL here points at nothing): a worker only reads its tools.
 */
import { McpServer, RedisTaskStore } from '../../lib/index.js';
import { local, spin, whoami } from './fleet-tools.js';

const redis = process.env.FLEET_MODULE_REDIS ?? 'redis://127.0.0.1:1';

export default new McpServer({
  name: 'weft-fleet-module',
  version: '1.0.0',
  fleet: { redis, queue: 'weft-module' },
  tasks: { store: new RedisTaskStore({ url: redis }) },
})
  .tool(spin)
  .tool(whoami)
  .tool(local)
  .tool({
    name: 'echo',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    handler: ({ text }) => text ?? '',
  });
