/** `primes {limit}`: a sieve of Eratosthenes; answers how many primes there are up to `limit`. */
import { defineTool } from '../../lib/tool.js';

export default defineTool({
  name: 'primes',
  description: 'Counts the primes up to `limit` (sieve of Eratosthenes) and returns the largest few.',
  inputSchema: {
    type: 'object',
    properties: { limit: { type: 'integer', minimum: 2, maximum: 500_000_000 } },
    required: ['limit'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      count: { type: 'integer' },
      largest: { type: 'array', items: { type: 'integer' } },
    },
    required: ['count', 'largest'],
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  blocking: true,
  module: import.meta.url,
  handler: ({ limit }, ctx) => {
    const composite = new Uint8Array(limit + 1);
    for (let p = 2; p * p <= limit; p++) {
      if (composite[p]) continue;
      for (let multiple = p * p; multiple <= limit; multiple += p) composite[multiple] = 1;
      if (p % 64 === 0) ctx.checkpoint();
    }
    let count = 0;
    const largest: number[] = [];
    for (let n = limit; n >= 2; n--) {
      if (composite[n]) continue;
      count++;
      if (largest.length < 5) largest.push(n);
    }
    return { count, largest };
  },
});
