/**
 * `test_tool_with_progress`: progress 0, 50, 100 of 100, about 50 ms apart. Blocking on purpose:
 * progress is reported from a pool thread, which proves it travels out of workers.
 */
import { defineTool } from '../../lib/tool.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export default defineTool({
  name: 'test_tool_with_progress',
  description: 'Reports progress 0, 50 and 100 of 100 about 50 ms apart, from a worker thread',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  blocking: true,
  module: import.meta.url,
  handler: async (_args, ctx) => {
    ctx.progress(0, 100);
    await pause(50);
    ctx.progress(50, 100);
    await pause(50);
    ctx.progress(100, 100);
    return 'Progress test completed';
  },
});
