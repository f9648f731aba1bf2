/** `fib {n}`: the n-th Fibonacci number, computed the slow (exponential) way on purpose. */
import { defineTool } from '../../lib/tool.js';

function fibonacci(n: number): number {
  return n < 2 ? n : fibonacci(n - 1) + fibonacci(n - 2);
}

export default defineTool({
  name: 'fib',
  description: 'The n-th Fibonacci number by naive recursion: CPU-bound, runs in the worker pool.',
  inputSchema: {
    type: 'object',
    properties: { n: { type: 'integer', minimum: 0, maximum: 40, description: 'Which Fibonacci number' } },
    required: ['n'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: { n: { type: 'integer' }, value: { type: 'integer' } },
    required: ['n', 'value'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  blocking: true,
  module: import.meta.url,
  timeoutMs: 5_000,
  handler: ({ n }) => ({ n, value: fibonacci(n) }),
});
