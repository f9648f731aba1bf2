/**
 * `prime_density {limit, buckets}`: how many primes fall in each of `buckets` equal ranges up to
 * `limit` (a sieve, CPU-heavy for large limits, so it runs in the pool). Its MCP App draws the
 * counts as a bar chart; hosts without apps get the same numbers as text.
 */
import { defineTool } from '../../lib/tool.js';

export const PRIME_DENSITY_APP = 'ui://weft-demo/prime-density.html';

export default defineTool({
  name: 'prime_density',
  description:
    'Counts the primes up to `limit` in `buckets` equal ranges (sieve of Eratosthenes, in the worker pool). Hosts with MCP Apps show a bar chart.',
  inputSchema: {
    type: 'object',
    properties: {
      limit: { type: 'integer', minimum: 10, maximum: 200_000_000 },
      buckets: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
    },
    required: ['limit'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      limit: { type: 'integer' },
      total: { type: 'integer' },
      buckets: {
        type: 'array',
        items: {
          type: 'object',
          properties: { from: { type: 'integer' }, to: { type: 'integer' }, count: { type: 'integer' } },
          required: ['from', 'to', 'count'],
        },
      },
    },
    required: ['limit', 'total', 'buckets'],
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  ui: { resourceUri: PRIME_DENSITY_APP },
  blocking: true,
  module: import.meta.url,
  handler: ({ limit, buckets = 10 }, ctx) => {
    const composite = new Uint8Array(limit + 1);
    for (let p = 2; p * p <= limit; p++) {
      if (composite[p]) continue;
      for (let multiple = p * p; multiple <= limit; multiple += p) composite[multiple] = 1;
      if (p % 64 === 0) ctx.checkpoint();
    }
    // Ranges [from, to], the last one ending at limit exactly.
    const width = Math.ceil(limit / buckets);
    const ranges = Array.from({ length: buckets }, (_, i) => ({
      from: i * width + 1,
      to: Math.min((i + 1) * width, limit),
      count: 0,
    })).filter((range) => range.from <= range.to);
    let total = 0;
    for (let n = 2; n <= limit; n++) {
      if (composite[n]) continue;
      total++;
      ranges[Math.floor((n - 1) / width)]!.count++;
    }
    return {
      content: [
        {
          type: 'text',
          text: `${total} primes up to ${limit}; per range: ${ranges.map((r) => `${r.from}-${r.to}: ${r.count}`).join(', ')}`,
        },
      ],
      structuredContent: { limit, total, buckets: ranges },
    };
  },
});
