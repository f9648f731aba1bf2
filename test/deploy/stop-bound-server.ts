/**
 * The server of the stop-bound suite, run as a process of its own: Streamable HTTP, WebSocket on a
 * port of its own and the probes on a third, optionally with a Redis task store, handling its
 * signals as a deployed server does. It prints `stop-bound-server: {"http":...,"ws":...,"health":...}`
 * (the ports) once it listens.
 *
 *   node dist/test/deploy/stop-bound-server.js [--redis URL] [--shutdown-grace-ms N]
 */
import { parseArgs } from 'node:util';
import { McpServer, RedisTaskStore } from '../../lib/index.js';

const { values } = parseArgs({
  options: {
    redis: { type: 'string' },
    'shutdown-grace-ms': { type: 'string', default: '500' },
  },
  strict: true,
});

const server = new McpServer({
  name: 'weft-stop-bound',
  version: '0.0.0',
  shutdownGraceMs: Number(values['shutdown-grace-ms']),
  ...(values.redis ? { tasks: { store: new RedisTaskStore({ url: values.redis }) } } : {}),
});
server.tool({
  name: 'echo',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  handler: ({ text }) => text,
});

await server.listen({ http: { port: 0, health: { port: 0 } }, ws: { port: 0 } });
const { http, ws, health } = server.addresses;
process.stderr.write(
  `stop-bound-server: ${JSON.stringify({ http: http?.port, ws: ws?.port, health: health?.port })}\n`,
);
