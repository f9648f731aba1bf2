#!/usr/bin/env node
import { addDemoTools } from '../../examples/demo-tools.js';
/**
 * The weft server under benchmark: the demo tools (examples/demo-tools.ts) plus `noop` inline and
 * `noop_blocking` in the pool, the pair that isolates the cost of dispatching to a thread, and the
 * payload scenario's tools (payload-tools.ts).
 * Takes the same flags as the peers: --stdio, --http PORT, --ws PORT, --threads N, and --nice N
 * (the pool's niceIncrement; weft's default otherwise), and --fairness off (first come, first served).
 * `--issuer URL --audience URL` protects the HTTP endpoint with `oauthResourceServer` (the
 * modern-http-auth scenario). `pool_stats` answers with `server.stats.callers`, what each caller holds and waits for.
 * `--spin-process` adds `spin_process`, the runaway spin in a pool process (first-call-deadline).
 * `--trust-proxy ADDR` trusts the forwarding headers of the proxy at ADDR (haproxy-neighbours).
 * `--request-times` adds `request_times`, the server's own time per `echo` request over HTTP
 * (v2-client-echo).
 */
import { McpServer, oauthResourceServer } from '../../lib/index.js';
import { readPeerOptions } from '../peers/peer-options.js';
import noopBlocking from './noop-blocking.js';
import { PAYLOAD_TOOLS } from './payload-tools.js';
import { watchRequestTimes } from './request-times.js';
import spinProcess from './spin-process.js';

const argv = process.argv.slice(2);
/** Takes `--name value` out of argv (the peers' shared flags are parsed strictly). */
const own = (name: string): string | undefined => {
  const at = argv.indexOf(name);
  return at === -1 ? undefined : argv.splice(at, 2)[1];
};
const spinInProcess = argv.includes('--spin-process');
if (spinInProcess) argv.splice(argv.indexOf('--spin-process'), 1);
const requestTimes = argv.includes('--request-times');
if (requestTimes) argv.splice(argv.indexOf('--request-times'), 1);
const issuer = own('--issuer');
const trustProxy = own('--trust-proxy');
const audience = own('--audience');
const auth = issuer ? oauthResourceServer({ issuer, audience }) : undefined;
const options = readPeerOptions(argv);

const server: McpServer = addDemoTools(
  new McpServer({
    name: 'weft-bench',
    version: '0.1.0',
    timeoutMs: 30_000,
    ...(options.fairness === 'off' ? { fairness: false as const } : {}),
    ...(trustProxy === undefined ? {} : { trustProxy: [trustProxy] }),
    pool: {
      ...(options.threads === undefined ? {} : { maxThreads: options.threads }),
      ...(options.nice === undefined ? {} : { niceIncrement: options.nice }),
    },
  }),
)
  .tool({
    name: 'noop',
    description: 'Does nothing, inline (the baseline for noop_blocking).',
    inputSchema: { type: 'object', additionalProperties: false },
    handler: () => 'ok',
  })
  .tool(noopBlocking)
  .tool({
    name: 'pool_stats',
    description: 'What each caller holds and waits for now (server.stats.callers).',
    inputSchema: { type: 'object', additionalProperties: false },
    handler: (): string => JSON.stringify(server.stats.callers),
  });
for (const tool of PAYLOAD_TOOLS) server.tool(tool);
/** The payload scenario sends 8 MiB arguments (11 MiB as base64); the peers read bodies unbounded. */
const PAYLOAD_MAX_BODY_BYTES = 64 * 1024 * 1024;
if (options.noopMiddleware) server.use((_ctx, next) => next());
if (spinInProcess) server.tool(spinProcess);
if (requestTimes) server.tool(watchRequestTimes(['echo']));

await server.listen({
  stdio: options.stdio,
  ...(options.httpPort === undefined
    ? {}
    : { http: { port: options.httpPort, host: '127.0.0.1', auth, maxBodyBytes: PAYLOAD_MAX_BODY_BYTES } }),
  ...(options.wsPort === undefined ? {} : { ws: { port: options.wsPort, host: '127.0.0.1' } }),
});
