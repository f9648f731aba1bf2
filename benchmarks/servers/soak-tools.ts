/**
 * The soak server's pool tools (benchmarks/soak): each blocking tool must live in a module a pool
 * thread can import, so they are kept apart from the server's own file.
 *
 * - `burn {ms}` spins with no checkpoint; its 150 ms deadline terminates the thread when ms is larger.
 * - `fail_blocking` throws in its thread: a tool error, the thread lives on.
 * - `end_thread` ends its own thread (process.exit in a worker): an internal error, the thread replaced.
 * - `task_sleep {ms}` sleeps in a thread, as a task when the client asks for one; a cancel stops it.
 */
import { abortableSleep } from '../../lib/abortable-sleep.js';
import { defineTool } from '../../lib/tool.js';

export const burn = defineTool({
  name: 'burn',
  description: 'Spins for ms milliseconds with no checkpoint; the deadline (150 ms) ends its thread.',
  inputSchema: {
    type: 'object',
    properties: { ms: { type: 'integer', minimum: 0, maximum: 10_000 } },
    required: ['ms'],
    additionalProperties: false,
  },
  blocking: true,
  module: import.meta.url,
  export: 'burn',
  timeoutMs: 150,
  handler: ({ ms }) => {
    const until = Date.now() + ms;
    let spins = 0;
    while (Date.now() < until) spins++;
    return `burned ${ms} ms (${spins})`;
  },
});

export const failBlocking = defineTool({
  name: 'fail_blocking',
  description: 'Throws in its pool thread (a tool error).',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  blocking: true,
  module: import.meta.url,
  export: 'failBlocking',
  handler: () => {
    throw new Error('fail_blocking failed on purpose');
  },
});

export const endThread = defineTool({
  name: 'end_thread',
  description: 'Ends its own pool thread (an internal error; the pool replaces the thread).',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  blocking: true,
  module: import.meta.url,
  export: 'endThread',
  handler: () => {
    process.exit(3);
  },
});

export const taskSleep = defineTool({
  name: 'task_sleep',
  description: 'Sleeps ms milliseconds in a pool thread; a task when the client asks for one.',
  inputSchema: {
    type: 'object',
    properties: { ms: { type: 'integer', minimum: 0, maximum: 60_000 } },
    required: ['ms'],
    additionalProperties: false,
  },
  blocking: true,
  module: import.meta.url,
  export: 'taskSleep',
  task: 'optional',
  handler: async ({ ms }, ctx) => {
    await abortableSleep(ms, ctx.signal);
    return `slept ${ms} ms`;
  },
});
