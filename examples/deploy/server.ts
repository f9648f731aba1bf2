// server.ts: one replica of the deploy recipe (docs/deploying.md). Every replica runs this same
// file behind HAProxy (haproxy.cfg), sharing one Redis for tasks, per-caller counts and the fleet
// queue, and one requestStateKey. `node server.js` listens; `import` only builds it.
//
//   REDIS_URL          redis://127.0.0.1:6379           the shared Redis
//   WEFT_STATE_KEY     (required) openssl rand -base64 32, the same on every replica
//   PORT, HOST         3000, 127.0.0.1                   where /mcp, /healthz and /readyz listen
//   WEFT_TRUST_PROXY   127.0.0.1                         the balancer's address(es), comma-separated:
//                                                      its X-Forwarded-For names each client
//   WEFT_QUEUE         weft                              the fleet queue `weft worker` serves
//   WEFT_DRAIN_DELAY_MS, WEFT_DRAIN_TIMEOUT_MS, WEFT_SHUTDOWN_GRACE_MS, WEFT_TASK_LEASE_MS
//                                                      see docs/deploying.md, "The drain timeline"
import { fileURLToPath } from 'node:url';
import { McpServer, RedisTaskStore } from 'weft-mcp';
import { crunch, hash, report } from './tools.js';

const env = process.env;
const redis = env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const stateKey = env.WEFT_STATE_KEY;
if (!stateKey) {
  throw new Error('WEFT_STATE_KEY is required: give every replica the same key (openssl rand -base64 32)');
}
const ms = (name: string, fallback: number) => Number(env[name] ?? fallback);

const server = new McpServer({
  name: 'weft-deploy',
  version: '1.0.0',
  timeoutMs: 30_000,
  requestStateKey: stateKey, // a multi-round retry may land on any replica
  shutdownGraceMs: ms('WEFT_SHUTDOWN_GRACE_MS', 10_000), // calls in flight finish within this
  drainDelayMs: ms('WEFT_DRAIN_DELAY_MS', 3_000), // > HAProxy's inter x fall: it looks away first
  drainTimeoutMs: ms('WEFT_DRAIN_TIMEOUT_MS', 25_000), // running tasks finish within this
  // HAProxy's X-Forwarded-For (option forwardfor) names each client, so each gets its own fair share.
  trustProxy: (env.WEFT_TRUST_PROXY ?? '127.0.0.1').split(',').map((address) => address.trim()),
  fleet: { redis, queue: env.WEFT_QUEUE ?? 'weft', placement: 'local' }, // `crunch` opts in
  // A replica that dies (SIGKILL, OOM) has its local tasks failed by the others after leaseMs.
  tasks: {
    store: new RedisTaskStore({ url: redis, leaseMs: ms('WEFT_TASK_LEASE_MS', 10_000) }),
    pollIntervalMs: 500,
  },
});
server.tool(hash).tool(crunch).tool(report);
export default server;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const port = Number(env.PORT ?? 3000);
  await server.listen({ http: { port, host: env.HOST ?? '127.0.0.1' } });
  const bound = server.addresses.http;
  process.stderr.write(`weft replica: listening on http://${bound?.address}:${bound?.port}/mcp\n`);
}
