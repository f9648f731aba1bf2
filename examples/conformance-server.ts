#!/usr/bin/env node
/**
 * The server the official conformance suite runs against: `PORT=N npm run --silent conformance:server`
 * serves it at http://127.0.0.1:N/mcp (PORT defaults to 3001).
 *
 * Its logging and progress tools are blocking (they run on the worker pool), so passing the suite
 * also proves that logs and progress travel out of worker threads. `test_reconnection`'s stream is
 * closed 100 ms into the call, which makes the client come back with Last-Event-ID for the answer.
 *
 * One server, one endpoint, both protocol eras: the 2025 suite talks to it through initialize and
 * sessions, the 2026-07-28 suite statelessly. The fixtures only the latter asks for (list-change
 * triggers, the per-request log level, x-mcp-header) are ordinary tools like the rest.
 *
 * With `--stdio` it serves one client on stdin/stdout instead: the upstream the conformance gateway
 * (conformance-gateway.ts) spawns and mounts.
 */
import { McpServer } from '../lib/index.js';
import { addClientRequestTools } from './conformance/client-request-tools.js';
import { addContentTools } from './conformance/content-tools.js';
import { addHeaderTools } from './conformance/header-tools.js';
import { addInputRequiredFixtures } from './conformance/input-required-tools.js';
import { addListChangeTriggers } from './conformance/list-change-triggers.js';
import { addLogLevelsTool } from './conformance/log-levels-tool.js';
import loggingTool from './conformance/logging-tool.js';
import progressTool from './conformance/progress-tool.js';
import { addResourcesAndPrompts } from './conformance/resources-and-prompts.js';
import { addTaskFixtures } from './conformance/task-tools.js';

const port = Number(process.env.PORT ?? 3001);

const server = new McpServer({
  name: 'weft-conformance',
  version: '0.1.0',
  timeoutMs: 30_000,
  pool: { maxThreads: 2 },
});
addContentTools(server);
addClientRequestTools(server);
addResourcesAndPrompts(server);
addListChangeTriggers(server);
addLogLevelsTool(server);
addHeaderTools(server);
addInputRequiredFixtures(server);
addTaskFixtures(server);
server.tool(loggingTool).tool(progressTool);

// `--stdio`: serve one client over stdin/stdout instead (how examples/conformance-gateway.ts mounts it).
if (process.argv.includes('--stdio')) {
  await server.listen({ stdio: true });
} else {
  await server.listen({
    http: {
      port,
      retryMs: 500,
      pollAfterMs: (request) =>
        request.method === 'tools/call' && request.params?.name === 'test_reconnection' ? 100 : undefined,
    },
  });
  process.stderr.write(`weft conformance server: http://127.0.0.1:${server.addresses.http?.port}/mcp\n`);
}
