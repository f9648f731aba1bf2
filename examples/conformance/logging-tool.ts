/**
 * `test_tool_with_logging`: three info logs 50 ms apart. Blocking on purpose: the logs are sent
 * from a pool thread, which proves that logging travels out of workers in order, before the result.
 */
import { defineTool } from '../../lib/tool.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export default defineTool({
  name: 'test_tool_with_logging',
  description: 'Sends three info log notifications about 50 ms apart, from a worker thread',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  blocking: true,
  module: import.meta.url,
  handler: async (_args, ctx) => {
    ctx.log('info', 'Tool execution started');
    await pause(50);
    ctx.log('info', 'Tool processing data');
    await pause(50);
    ctx.log('info', 'Tool execution completed');
    return 'Logging test completed: sent 3 log notifications';
  },
});
