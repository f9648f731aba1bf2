/**
 * The fault matrix's tools with `isolation: 'process'`: the same faults as fault-tools.ts, and the
 * ones only a process can survive (native blocks), run in pool child processes that are killed
 * outright when their call is abandoned.
 */
import { type DefinedTool, defineTool } from '../../lib/tool.js';
import {
  addArgs,
  addNumbers,
  envArgs,
  exhaustHeap,
  noArgs,
  readEnv,
  sleepArgs,
  sleepInNativeCode,
  waitOnAtomics,
} from './fault-tools.js';

export const execSleepProcess = defineTool({
  name: 'exec_sleep_process',
  description: 'execSync(sleep) in a pool process, killed with its sleep at the deadline.',
  inputSchema: sleepArgs,
  blocking: true,
  module: import.meta.url,
  export: 'execSleepProcess',
  isolation: 'process',
  timeoutMs: 500,
  handler: sleepInNativeCode,
});

export const execSleepCancellable = defineTool({
  name: 'exec_sleep_cancellable',
  description: 'execSync(sleep) in a pool process with a long deadline, for cancel tests.',
  inputSchema: sleepArgs,
  blocking: true,
  module: import.meta.url,
  export: 'execSleepCancellable',
  isolation: 'process',
  timeoutMs: 20_000,
  handler: sleepInNativeCode,
});

export const execSleepColdStart = defineTool({
  name: 'exec_sleep_cold_start',
  description: 'A deadline shorter than a process start: the call is abandoned before it begins.',
  inputSchema: sleepArgs,
  blocking: true,
  module: import.meta.url,
  export: 'execSleepColdStart',
  isolation: 'process',
  // An env of its own gives this tool a pool of its own, and the fault server registers it after
  // listen() has warmed the pools up, so its first call always starts cold.
  env: { WEFT_COLD_POOL: '1' },
  timeoutMs: 50,
  handler: sleepInNativeCode,
});

export const atomicsWaitProcess = defineTool({
  name: 'atomics_wait_process',
  inputSchema: noArgs,
  blocking: true,
  module: import.meta.url,
  export: 'atomicsWaitProcess',
  isolation: 'process',
  timeoutMs: 400,
  handler: waitOnAtomics,
});

export const exitsInProcess = defineTool({
  name: 'exits_in_process',
  inputSchema: noArgs,
  blocking: true,
  module: import.meta.url,
  export: 'exitsInProcess',
  isolation: 'process',
  handler: () => {
    process.exit(4);
  },
});

export const addInProcess = defineTool({
  name: 'add_in_process',
  inputSchema: addArgs,
  blocking: true,
  module: import.meta.url,
  export: 'addInProcess',
  isolation: 'process',
  handler: addNumbers,
});

export const progressInProcess = defineTool({
  name: 'progress_in_process',
  inputSchema: { type: 'object', additionalProperties: false },
  blocking: true,
  module: import.meta.url,
  export: 'progressInProcess',
  isolation: 'process',
  handler: async (_args, ctx) => {
    for (let step = 1; step <= 3; step++) {
      ctx.progress(step, 3, `step ${step}`);
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    ctx.log('warning', { from: 'a pool process' });
    return 'done';
  },
});

export const printsInProcess = defineTool({
  name: 'prints_in_process',
  inputSchema: noArgs,
  blocking: true,
  module: import.meta.url,
  export: 'printsInProcess',
  isolation: 'process',
  handler: () => {
    console.log('this line is not JSON-RPC either');
    return 'printed';
  },
});

export const envProcess = defineTool({
  name: 'env_process',
  inputSchema: envArgs,
  blocking: true,
  module: import.meta.url,
  export: 'envProcess',
  isolation: 'process',
  handler: readEnv,
});

export const exhaustsHeapProcess = defineTool({
  name: 'exhausts_heap_process',
  inputSchema: { type: 'object', additionalProperties: false },
  blocking: true,
  module: import.meta.url,
  export: 'exhaustsHeapProcess',
  isolation: 'process',
  resourceLimits: { maxOldGenerationSizeMb: 48 },
  timeoutMs: 20_000,
  handler: exhaustHeap,
});

export const strayRejectionProcess = defineTool({
  name: 'stray_rejection_process',
  description: 'A stray rejection in a pool process, noticed while the call still runs.',
  inputSchema: { type: 'object', additionalProperties: false },
  blocking: true,
  module: import.meta.url,
  export: 'strayRejectionProcess',
  isolation: 'process',
  handler: async () => {
    Promise.reject(new Error('a stray rejection from a pool process'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    return 'answered';
  },
});

export const spinInProcess = defineTool({
  name: 'spin_in_process',
  description: 'Busy JavaScript for ms milliseconds in a pool process.',
  inputSchema: {
    type: 'object',
    properties: { ms: { type: 'integer', minimum: 0 } },
    required: ['ms'],
    additionalProperties: false,
  },
  blocking: true,
  module: import.meta.url,
  export: 'spinInProcess',
  isolation: 'process',
  handler: ({ ms }) => {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      // Busy on purpose: no event loop turn until the time is up.
    }
    return `spun ${ms} ms`;
  },
});

/** Every tool above except exec_sleep_cold_start, which the fault server registers late. */
export const PROCESS_FAULT_TOOLS: readonly DefinedTool[] = [
  execSleepProcess as DefinedTool,
  execSleepCancellable as DefinedTool,
  atomicsWaitProcess as DefinedTool,
  exitsInProcess as DefinedTool,
  addInProcess as DefinedTool,
  progressInProcess as DefinedTool,
  printsInProcess as DefinedTool,
  envProcess as DefinedTool,
  exhaustsHeapProcess as DefinedTool,
  strayRejectionProcess as DefinedTool,
  spinInProcess as DefinedTool,
];
