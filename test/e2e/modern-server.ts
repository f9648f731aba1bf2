/**
 * The server the modern-client tests start as a child process: the demo's tools, the conformance
 * server's x-mcp-header tool and list-change triggers, with a small page size so listings span
 * pages. `--stdio`, or `--http 0` (it announces the address on stderr), one or both.
 */
import { parseArgs } from 'node:util';
import { addHeaderTools } from '../../examples/conformance/header-tools.js';
import { addListChangeTriggers } from '../../examples/conformance/list-change-triggers.js';
import { addDemoTools } from '../../examples/demo-tools.js';
import { McpServer } from '../../lib/index.js';

const { values } = parseArgs({
  options: { stdio: { type: 'boolean', default: false }, http: { type: 'string' } },
  strict: true,
});

const server = addDemoTools(
  new McpServer({
    name: 'weft-modern-e2e',
    version: '0.0.0',
    timeoutMs: 30_000,
    pageSize: 4,
    pool: { maxThreads: 2 },
  }),
);
addHeaderTools(server);
addListChangeTriggers(server);

await server.listen({
  stdio: values.stdio,
  ...(values.http === undefined ? {} : { http: { port: Number(values.http), host: '127.0.0.1' } }),
});
const { http } = server.addresses;
if (http) process.stderr.write(`weft modern e2e: http://127.0.0.1:${http.port}/mcp\n`);
