/**
 * The fault matrix's blocking tools: one per way a handler can misbehave inside a pool worker.
 *
 * They live in one module that names itself, so each is registered by its export name. None of
 * them is useful; each is the smallest honest stand-in for a real failure (a runaway loop, a crash,
 * a heap blow-up, a handler stuck in native code).
 */
import { execSync } from 'node:child_process';
import { type DefinedTool, defineTool } from '../../lib/tool.js';

export const noArgs = { type: 'object', additionalProperties: false } as const;

export const loopForever = defineTool({
  name: 'loop_forever',
  description: 'A busy loop that never checks its cancel flag.',
  inputSchema: noArgs,
  blocking: true,
  module: import.meta.url,
  export: 'loopForever',
  timeoutMs: 400,
  handler: () => {
    for (;;) {
      // Nothing here can see a cancel; only terminating the thread stops it.
    }
  },
});

export const throwsError = defineTool({
  name: 'throws_error',
  inputSchema: noArgs,
  blocking: true,
  module: import.meta.url,
  export: 'throwsError',
  handler: () => {
    throw new Error('the tool broke on purpose');
  },
});

export const rejects = defineTool({
  name: 'rejects',
  inputSchema: noArgs,
  blocking: true,
  module: import.meta.url,
  export: 'rejects',
  handler: async () => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    throw new Error('the promise was rejected on purpose');
  },
});

/** Allocates until the heap limit kills the worker, thread or process. */
export function exhaustHeap(): never {
  const hoard: string[][] = [];
  for (;;) hoard.push(Array.from({ length: 10_000 }, (_, i) => `item ${i} of ${hoard.length}`));
}

export const exitsProcess = defineTool({
  name: 'exits_process',
  inputSchema: noArgs,
  blocking: true,
  module: import.meta.url,
  export: 'exitsProcess',
  handler: () => {
    process.exit(3);
  },
});

export const exhaustsHeap = defineTool({
  name: 'exhausts_heap',
  inputSchema: noArgs,
  blocking: true,
  module: import.meta.url,
  export: 'exhaustsHeap',
  resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 },
  timeoutMs: 20_000,
  handler: exhaustHeap,
});

export const overflowsStack = defineTool({
  name: 'overflows_stack',
  inputSchema: noArgs,
  blocking: true,
  module: import.meta.url,
  export: 'overflowsStack',
  handler: () => {
    const recurse = (depth: number): number => recurse(depth + 1) + 1;
    return String(recurse(0));
  },
});

export const strayRejection = defineTool({
  name: 'stray_rejection',
  description: 'Starts a promise that rejects with no one listening, then answers normally.',
  inputSchema: { type: 'object', additionalProperties: false },
  blocking: true,
  module: import.meta.url,
  export: 'strayRejection',
  handler: () => {
    Promise.reject(new Error('a stray rejection from a pool thread'));
    return 'answered';
  },
});

export const returnsFunction = defineTool({
  name: 'returns_function',
  inputSchema: noArgs,
  blocking: true,
  module: import.meta.url,
  export: 'returnsFunction',
  handler: () => (() => 'not data') as unknown as string,
});

export const bigResult = defineTool({
  name: 'big_result',
  inputSchema: {
    type: 'object',
    properties: { bytes: { type: 'integer', minimum: 0 } },
    required: ['bytes'],
    additionalProperties: false,
  },
  blocking: true,
  module: import.meta.url,
  export: 'bigResult',
  handler: ({ bytes }) => 'x'.repeat(bytes),
});

export const ignoresFlag = defineTool({
  name: 'ignores_flag',
  description: 'Sleeps in slices, never looking at ctx.signal or ctx.checkpoint().',
  inputSchema: noArgs,
  blocking: true,
  module: import.meta.url,
  export: 'ignoresFlag',
  timeoutMs: 300,
  handler: async () => {
    for (let i = 0; i < 600; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    return 'finished after all';
  },
});

export const sleepArgs = {
  type: 'object',
  properties: { seconds: { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$' } },
  required: ['seconds'],
  additionalProperties: false,
} as const;

/** The handler every native-block fixture shares: a real program that ignores every flag. */
export const sleepInNativeCode = ({ seconds }: { seconds: string }): string => {
  execSync(`sleep ${seconds}`);
  return 'slept';
};

export const execSleepThread = defineTool({
  name: 'exec_sleep_thread',
  description: 'execSync(sleep) in a pool thread: the thread cannot be torn out of native code.',
  inputSchema: sleepArgs,
  blocking: true,
  module: import.meta.url,
  export: 'execSleepThread',
  timeoutMs: 500,
  handler: sleepInNativeCode,
});

/** Blocks in native code for 30 s: no flag is ever looked at. */
export const waitOnAtomics = (): string => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 30_000);
  return 'woke';
};

export const atomicsWait = defineTool({
  name: 'atomics_wait',
  description: 'Atomics.wait for 30 s in a pool thread.',
  inputSchema: noArgs,
  blocking: true,
  module: import.meta.url,
  export: 'atomicsWait',
  timeoutMs: 400,
  handler: waitOnAtomics,
});

export const addArgs = {
  type: 'object',
  properties: { a: { type: 'number' }, b: { type: 'number' } },
  required: ['a', 'b'],
  additionalProperties: false,
} as const;

export const addNumbers = ({ a, b }: { a: number; b: number }) => ({
  content: [{ type: 'text' as const, text: String(a + b) }],
});

export const addInThread = defineTool({
  name: 'add_in_thread',
  inputSchema: addArgs,
  blocking: true,
  module: import.meta.url,
  export: 'addInThread',
  handler: addNumbers,
});

export const printsToStdout = defineTool({
  name: 'prints_to_stdout',
  description: 'console.log from tool code must never reach the stdio protocol stream.',
  inputSchema: noArgs,
  blocking: true,
  module: import.meta.url,
  export: 'printsToStdout',
  handler: () => {
    console.log('this line is not JSON-RPC');
    return 'printed';
  },
});

export const envArgs = {
  type: 'object',
  properties: { name: { type: 'string' } },
  required: ['name'],
  additionalProperties: false,
} as const;
export const readEnv = (args: { name: string }): string =>
  JSON.stringify({ value: process.env[args.name] ?? null });

export const envDefault = defineTool({
  name: 'env_default',
  inputSchema: envArgs,
  blocking: true,
  module: import.meta.url,
  export: 'envDefault',
  handler: readEnv,
});

export const envShared = defineTool({
  name: 'env_shared',
  inputSchema: envArgs,
  blocking: true,
  module: import.meta.url,
  export: 'envShared',
  env: true,
  handler: readEnv,
});

export const envRecord = defineTool({
  name: 'env_record',
  inputSchema: envArgs,
  blocking: true,
  module: import.meta.url,
  export: 'envRecord',
  env: { WEFT_GRANTED: 'granted-value' },
  handler: readEnv,
});

/** Every tool above, for the fault server to register (process-isolated ones: process-fault-tools). */
export const FAULT_TOOLS: readonly DefinedTool[] = [
  loopForever as DefinedTool,
  throwsError as DefinedTool,
  rejects as DefinedTool,
  exitsProcess as DefinedTool,
  exhaustsHeap as DefinedTool,
  overflowsStack as DefinedTool,
  returnsFunction as DefinedTool,
  strayRejection as DefinedTool,
  bigResult as DefinedTool,
  ignoresFlag as DefinedTool,
  execSleepThread as DefinedTool,
  atomicsWait as DefinedTool,
  addInThread as DefinedTool,
  printsToStdout as DefinedTool,
  envDefault as DefinedTool,
  envShared as DefinedTool,
  envRecord as DefinedTool,
];
