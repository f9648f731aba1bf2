/**
 * A pure-JavaScript blocking tool in a module of its own (no native code in its graph): the call
 * every other caller of a server busy with native work is waiting to run.
 */
import { pbkdf2Sync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { defineTool } from '../../lib/tool.js';
import { sleepArgs } from '../faults/fault-tools.js';

export const trivial = defineTool({
  name: 'trivial',
  inputSchema: { type: 'object' },
  blocking: true,
  module: import.meta.url,
  export: 'trivial',
  handler: () => 'done',
});

/**
 * pbkdf2 iterations this thread runs per ms now, measured as the call starts rather than once at
 * load: a machine busier when the module loaded than when the call runs would otherwise make a
 * call planned for seconds end a moment past its deadline, before its lost slot could be seen.
 */
function iterationsPerMs(): number {
  const start = performance.now();
  pbkdf2Sync('weft', 'salt', 20_000, 64, 'sha512');
  return 20_000 / Math.max(1, performance.now() - start);
}

/**
 * A thread stuck in native code for about `seconds`: one `pbkdf2Sync` runs in C++ until its
 * iterations are done, and a thread's termination takes effect only once it is back in
 * JavaScript, so its slot is lost meanwhile. (An `execSync` would not do: the command, a process
 * the call started, is killed with the call, which frees the thread.) The deadline leaves a fresh
 * thread room to load this module.
 */
export const nativeBusy = defineTool({
  name: 'native_busy',
  inputSchema: sleepArgs,
  blocking: true,
  module: import.meta.url,
  export: 'nativeBusy',
  timeoutMs: 1_500,
  handler: ({ seconds }: { seconds: string }) => {
    pbkdf2Sync(
      'weft',
      'salt',
      Math.max(1, Math.round(Number(seconds) * 1000 * iterationsPerMs())),
      64,
      'sha512',
    );
    return `busy for ${seconds} s in native code`;
  },
});

/**
 * A thread held in native code for exactly as long as the caller likes: it opens a FIFO for reading,
 * and the open blocks in the kernel until a writer comes, which a termination cannot interrupt. The
 * test that calls it writes to the FIFO to let the thread go (no calibration, so a loaded machine
 * cannot end the block early). Its module is native_busy's, so a call of that loads it.
 */
export const nativeBlocked = defineTool({
  name: 'native_blocked',
  inputSchema: { type: 'object', properties: { fifo: { type: 'string' } }, required: ['fifo'] },
  blocking: true,
  module: import.meta.url,
  export: 'nativeBlocked',
  timeoutMs: 1_500,
  handler: ({ fifo }: { fifo: string }) => `read ${readFileSync(fifo, 'utf8').length} bytes`,
});
