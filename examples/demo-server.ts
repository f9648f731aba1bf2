#!/usr/bin/env node
/**
 * The demo server: `npm run --silent demo -- --stdio`, `-- --http 3000`, `-- --ws 3001` (any mix).
 * `npm start` serves it over Streamable HTTP at http://127.0.0.1:${PORT:-3000}/mcp.
 *
 * Options: --stdio, --http PORT, --ws PORT (the same port as --http shares it), --host ADDRESS
 * (default 127.0.0.1), --page-size N, --threads N, --timeout-ms N.
 */
import { parseArgs } from 'node:util';
import { McpServer } from '../lib/index.js';
import { addDemoApp, addDemoTools } from './demo-tools.js';

const { values } = parseArgs({
  options: {
    stdio: { type: 'boolean', default: false },
    http: { type: 'string' },
    ws: { type: 'string' },
    host: { type: 'string', default: '127.0.0.1' },
    'page-size': { type: 'string' },
    threads: { type: 'string' },
    'timeout-ms': { type: 'string', default: '30000' },
  },
  strict: true,
});

const number = (text: string | undefined): number | undefined =>
  text === undefined ? undefined : Number(text);

const port = (text: string | undefined, flag: string): number | undefined => {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0 || value > 65_535) {
    process.stderr.write(`weft demo: ${flag} needs a port number (0-65535), got ${JSON.stringify(text)}\n`);
    process.exit(2);
  }
  return value;
};

const server = addDemoApp(
  addDemoTools(
    new McpServer({
      name: 'weft-demo',
      version: '0.1.0',
      title: 'weft demo: heavy tools that never stall the server',
      timeoutMs: number(values['timeout-ms']),
      pageSize: number(values['page-size']),
      pool: { maxThreads: number(values.threads) },
    }),
  ),
).tool({
  // x-mcp-header: a 2026-07-28 HTTP client mirrors `region` into an `Mcp-Param-Region` header, so
  // a proxy or balancer can route on it without reading the body; weft refuses a call whose header
  // and body disagree (400, -32020). Over stdio and WebSocket the annotation changes nothing.
  name: 'regional_echo',
  description:
    'Returns its text tagged with the region it was sent to. The region travels in the Mcp-Param-Region header too (x-mcp-header).',
  inputSchema: {
    type: 'object',
    properties: {
      region: { type: 'string', description: 'Where to run, e.g. us-west1', 'x-mcp-header': 'Region' },
      text: { type: 'string' },
    },
    required: ['region', 'text'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  handler: ({ region, text }) => `[${region}] ${text}`,
});

const httpPort = port(values.http, '--http');
const wsPort = port(values.ws, '--ws');
if (!values.stdio && httpPort === undefined && wsPort === undefined) {
  process.stderr.write('weft demo: choose a transport: --stdio, --http PORT or --ws PORT\n');
  process.exit(2);
}
await server.listen({
  stdio: values.stdio,
  ...(httpPort === undefined ? {} : { http: { port: httpPort, host: values.host } }),
  ...(wsPort === undefined ? {} : { ws: { port: wsPort, host: values.host } }),
});
const { http, ws } = server.addresses;
if (http) process.stderr.write(`weft demo: Streamable HTTP at http://${values.host}:${http.port}/mcp\n`);
if (ws) process.stderr.write(`weft demo: WebSocket at ws://${values.host}:${ws.port}\n`);
