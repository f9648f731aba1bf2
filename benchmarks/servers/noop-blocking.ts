/**
 * `noop_blocking`: a blocking tool that does nothing, so a call measures only what running in the
 * pool costs (dispatch to a thread and back) next to the same tool run inline.
 */
import { defineTool } from '../../lib/tool.js';

export default defineTool({
  name: 'noop_blocking',
  description: 'Does nothing, in the worker pool (measures pool dispatch cost).',
  inputSchema: { type: 'object', additionalProperties: false },
  blocking: true,
  module: import.meta.url,
  handler: () => 'ok',
});
