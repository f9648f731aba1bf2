/**
 * The server of doors-after-threads.test.ts: two pool threads, legacy HTTP on a free port, and a
 * blocking tool unless WEFT_INLINE_ONLY is set. Once listen() has resolved it prints how many of
 * its threads had loaded by then (the lines slow-thread-start.cts wrote), then serves on.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import hashChain from '../../examples/tools/hash-chain.js';
import { McpServer } from '../../lib/index.js';

const server = new McpServer({ name: 'doors-after-threads', version: '0.0.0', pool: { maxThreads: 2 } }).tool(
  {
    name: 'echo',
    description: 'Returns its text (inline)',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    handler: ({ text }) => text,
  },
);
if (!process.env.WEFT_INLINE_ONLY) server.tool(hashChain);
await server.listen({ http: { port: 0 } });
const { threadLogOf } = createRequire(import.meta.url)('./slow-thread-start.cjs') as {
  threadLogOf: (pid: number) => string;
};
const log = threadLogOf(process.pid);
const loaded = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0;
process.stderr.write(`listening; threads loaded before: ${loaded}\n`);
