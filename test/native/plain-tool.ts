/**
 * A pure-JavaScript blocking tool in a module of its own (no native code in its graph): the call
 * every other caller of a server busy with native work is waiting to run.
 */
import { defineTool } from '../../lib/tool.js';

export const trivial = defineTool({
  name: 'trivial',
  inputSchema: { type: 'object' },
  blocking: true,
  module: import.meta.url,
  export: 'trivial',
  handler: () => 'done',
});
