/**
 * A blocking tool for the transformTool tests: it spins for `ms` without ever looking at its cancel
 * flag (so only a thread termination stops it early) and says with which arguments and where it ran.
 */
import { isMainThread } from 'node:worker_threads';
import { defineTool } from '../../lib/tool.js';

export const spinArgs = defineTool({
  name: 'spin_args',
  description: 'Spins for ms, then reports its arguments and where it ran',
  inputSchema: {
    type: 'object',
    properties: {
      ms: { type: 'integer', minimum: 0 },
      label: { type: 'string' },
      mode: { type: 'string', enum: ['fast', 'slow', 'secret'] },
    },
    required: ['ms', 'mode'],
    additionalProperties: false,
  },
  blocking: true,
  module: import.meta.url,
  timeoutMs: 1500,
  handler: ({ ms, label, mode }) => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      // a runaway: no checkpoint, so a deadline or a cancel must terminate the thread
    }
    return `${label ?? '-'}:${mode}:${ms}:${isMainThread ? 'main' : 'pool'}`;
  },
});
