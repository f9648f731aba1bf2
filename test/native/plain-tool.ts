/**
 * A pure-JavaScript blocking tool in a module of its own (no native code in its graph): the call
 * every other caller of a server busy with native work is waiting to run.
 */
import { defineTool } from '../../lib/tool.js';
import { sleepArgs, sleepInNativeCode } from '../faults/fault-tools.js';

export const trivial = defineTool({
  name: 'trivial',
  inputSchema: { type: 'object' },
  blocking: true,
  module: import.meta.url,
  export: 'trivial',
  handler: () => 'done',
});

/**
 * A thread stuck in execSync: terminated at its deadline, it cannot exit until the command returns,
 * so its slot is lost meanwhile. The deadline leaves a fresh thread room to load this module.
 */
export const execSleep = defineTool({
  name: 'exec_sleep',
  inputSchema: sleepArgs,
  blocking: true,
  module: import.meta.url,
  export: 'execSleep',
  timeoutMs: 1_500,
  handler: sleepInNativeCode,
});
