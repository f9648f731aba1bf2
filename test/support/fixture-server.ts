/**
 * A server for end-to-end tests: the demo's tools plus the misbehaving fixtures, on stdio.
 * Options come from the environment so a test can shape the pool and the queue.
 */

import { addDemoTools } from '../../examples/demo-tools.js';
import { McpServer } from '../../lib/index.js';
import { busy, cooperative, crash, fail, progress, runaway } from './fixture-tools.js';

const env = (name: string): number | undefined => (process.env[name] ? Number(process.env[name]) : undefined);

const server = addDemoTools(
  new McpServer({
    name: 'weft-fixtures',
    version: '0.0.0',
    timeoutMs: env('WEFT_TIMEOUT_MS') ?? 10_000,
    pageSize: env('WEFT_PAGE_SIZE'),
    pool: { maxThreads: env('WEFT_THREADS') ?? 2, maxQueue: env('WEFT_MAX_QUEUE') },
  }),
)
  .tool(crash)
  .tool(fail)
  .tool(cooperative)
  .tool(progress)
  .tool(busy)
  .tool(runaway);

await server.listen({ stdio: true });
