// tools/fib.ts: one definition, imported by the server (name, schemas) and by the pool worker (handler).
import { defineTool } from 'weft-mcp/tool';

export default defineTool({
  name: 'fib',
  description: 'The n-th Fibonacci number',
  inputSchema: {
    type: 'object',
    properties: { n: { type: 'integer', minimum: 0, maximum: 40 } },
    required: ['n'],
  },
  outputSchema: { type: 'object', properties: { value: { type: 'integer' } }, required: ['value'] },
  blocking: true, // runs in a worker thread: the deadline and a cancel really stop it
  module: import.meta.url, // the pool worker imports this very module for the handler
  timeoutMs: 5_000,
  handler: ({ n }, ctx) => {
    const fibonacci = (k: number): number => {
      ctx.checkpoint(); // one atomic read: throws once the call is over (deadline, cancel)
      return k < 2 ? k : fibonacci(k - 1) + fibonacci(k - 2);
    };
    return { value: fibonacci(n) }; // n: number; the result is checked against outputSchema
  },
});
