/**
 * The demo server's tools, gathered so the demo, the tests and the benchmarks register the same set.
 */
import type { McpServer } from '../lib/index.js';
import { PRIME_DENSITY_HTML } from './apps/prime-density-app.js';
import compress from './tools/compress.js';
import fib from './tools/fib.js';
import hashChain from './tools/hash-chain.js';
import primeDensity, { PRIME_DENSITY_APP } from './tools/prime-density.js';
import primes from './tools/primes.js';
import regexSearch from './tools/regex-search.js';
import spin from './tools/spin.js';

export function addDemoTools(server: McpServer): McpServer {
  return server
    .tool({
      name: 'echo',
      description: 'Returns its text unchanged. Inline: runs on the event loop.',
      inputSchema: {
        type: 'object',
        properties: { text: { type: 'string' } },
        required: ['text'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      handler: ({ text }) => text,
    })
    .tool({
      name: 'wait',
      description: 'Waits ms milliseconds without using CPU (inline, async); stops early when cancelled.',
      inputSchema: {
        type: 'object',
        properties: { ms: { type: 'integer', minimum: 0, maximum: 600_000 } },
        required: ['ms'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
      handler: ({ ms }, ctx) =>
        new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => resolve(`waited ${ms} ms`), ms);
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(ctx.signal.reason);
          });
        }),
    })
    .tool(fib)
    .tool(spin)
    .tool(hashChain)
    .tool(primes)
    .tool(regexSearch)
    .tool(compress);
}

/**
 * The demo's MCP App: `prime_density` and the bar chart a host renders for it. Kept apart from
 * addDemoTools (like regional_echo) so the tool set the tests and benchmarks count stays the same.
 */
export function addDemoApp(server: McpServer): McpServer {
  return server
    .uiResource({
      uri: PRIME_DENSITY_APP,
      name: 'prime-density-chart',
      title: 'Prime density chart',
      description: 'A bar chart of prime_density results',
      html: PRIME_DENSITY_HTML,
      csp: {},
      prefersBorder: true,
    })
    .tool(primeDensity);
}
