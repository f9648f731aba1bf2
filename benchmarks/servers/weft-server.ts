#!/usr/bin/env node
import { addDemoTools } from '../../examples/demo-tools.js';
/**
 * The weft server under benchmark: the demo tools (examples/demo-tools.ts) plus `noop` inline and
 * `noop_blocking` in the pool, the pair that isolates the cost of dispatching to a thread.
 * Takes the same flags as the peers: --stdio, --http PORT, --ws PORT, --threads N, and --nice N
 * (the pool's niceIncrement; weft's default otherwise).
 */
import { McpServer } from '../../lib/index.js';
import { readPeerOptions } from '../peers/peer-options.js';
import noopBlocking from './noop-blocking.js';

const options = readPeerOptions();

const server = addDemoTools(
  new McpServer({
    name: 'weft-bench',
    version: '0.1.0',
    timeoutMs: 30_000,
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
  .tool(noopBlocking);
if (options.noopMiddleware) server.use((_ctx, next) => next());

await server.listen({
  stdio: options.stdio,
  ...(options.httpPort === undefined ? {} : { http: { port: options.httpPort, host: '127.0.0.1' } }),
  ...(options.wsPort === undefined ? {} : { ws: { port: options.wsPort, host: '127.0.0.1' } }),
});
