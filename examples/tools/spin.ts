/**
 * `spin {ms}`: a pure busy loop that never looks at its cancel flag, the worst case for a server.
 * Only terminating its thread stops it early, which is exactly what weft does at the deadline.
 */
import { defineTool } from '../../lib/tool.js';

export default defineTool({
  name: 'spin',
  description: 'Burns CPU for ms milliseconds in a loop with no checkpoints (a runaway tool stand-in).',
  inputSchema: {
    type: 'object',
    properties: { ms: { type: 'integer', minimum: 0, description: 'How long to spin' } },
    required: ['ms'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  blocking: true,
  module: import.meta.url,
  timeoutMs: 2_000,
  handler: ({ ms }) => {
    const until = Date.now() + ms;
    let spins = 0;
    while (Date.now() < until) spins++;
    return `spun ${ms} ms (${spins} iterations)`;
  },
});
