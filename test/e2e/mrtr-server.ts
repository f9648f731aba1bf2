/**
 * The server the multi-round tests start as a child process: the conformance server's MRTR fixtures
 * (inline and blocking), a process-isolated asker, `spin`, and `pool_stats` (what the pool holds
 * right now). `--stdio`, or `--http 0` (the address is announced on stderr); `--state-key` and
 * `--state-ttl` set requestStateKey and requestStateTtlMs, so two processes can share a key.
 */
import { parseArgs } from 'node:util';
import { addInputRequiredFixtures } from '../../examples/conformance/input-required-tools.js';
import spin from '../../examples/tools/spin.js';
import { McpServer } from '../../lib/index.js';
import { askInProcess, countedQuestion } from './mrtr-tools.js';

const { values } = parseArgs({
  options: {
    stdio: { type: 'boolean', default: false },
    http: { type: 'string' },
    'state-key': { type: 'string' },
    'state-ttl': { type: 'string' },
  },
  strict: true,
});

const server = new McpServer({
  name: 'weft-mrtr-e2e',
  version: '0.0.0',
  timeoutMs: 30_000,
  pool: { maxThreads: 2 },
  ...(values['state-key'] === undefined ? {} : { requestStateKey: values['state-key'] }),
  ...(values['state-ttl'] === undefined ? {} : { requestStateTtlMs: Number(values['state-ttl']) }),
});
addInputRequiredFixtures(server);
server.tool(spin).tool(askInProcess).tool(countedQuestion);
server.tool({
  name: 'pool_stats',
  description: 'What the worker pool holds right now',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  handler: () => JSON.stringify(server.stats),
});

server.resource({
  uri: 'mrtr://roots',
  name: 'roots',
  description: "The client's roots, one per line: a resource reader that asks the client",
  read: async (_uri, ctx) => {
    if (!ctx.roots) throw new Error('no client to ask');
    const { roots } = await ctx.roots();
    return roots.map((root) => root.uri).join('\n');
  },
});

await server.listen({
  stdio: values.stdio,
  ...(values.http === undefined ? {} : { http: { port: Number(values.http), host: '127.0.0.1' } }),
});
const { http } = server.addresses;
if (http) process.stderr.write(`weft mrtr e2e: http://127.0.0.1:${http.port}/mcp\n`);
