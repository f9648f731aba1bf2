#!/usr/bin/env node
/**
 * The demo server: `npm run --silent demo -- --stdio`.
 *
 * Options: --stdio, --page-size N, --threads N, --timeout-ms N.
 */
import { parseArgs } from 'node:util';
import { McpServer } from '../lib/index.js';
import { addDemoTools } from './demo-tools.js';

const { values } = parseArgs({
  options: {
    stdio: { type: 'boolean', default: false },
    'page-size': { type: 'string' },
    threads: { type: 'string' },
    'timeout-ms': { type: 'string', default: '30000' },
  },
  strict: true,
});

const number = (text: string | undefined): number | undefined =>
  text === undefined ? undefined : Number(text);

const server = addDemoTools(
  new McpServer({
    name: 'weft-demo',
    version: '0.1.0',
    title: 'weft demo: heavy tools that never stall the server',
    timeoutMs: number(values['timeout-ms']),
    pageSize: number(values['page-size']),
    pool: { maxThreads: number(values.threads) },
  }),
);

if (!values.stdio) {
  process.stderr.write('weft demo: choose a transport, e.g. --stdio\n');
  process.exit(2);
}
await server.listen({ stdio: true });
