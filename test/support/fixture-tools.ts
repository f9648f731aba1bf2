/**
 * Blocking tools that misbehave on purpose, for the engine and end-to-end tests. Each one is its
 * own definition with `module: import.meta.url`, as users write them.
 */
import { defineTool } from '../../lib/tool.js';

const noArgs = { type: 'object', additionalProperties: false } as const;

export const crash = defineTool({
  name: 'crash',
  description: 'Kills its worker thread with process.exit().',
  inputSchema: noArgs,
  blocking: true,
  module: import.meta.url,
  handler: () => {
    process.exit(3);
  },
});

export const fail = defineTool({
  name: 'fail',
  description: 'Throws an error with a message.',
  inputSchema: noArgs,
  blocking: true,
  module: import.meta.url,
  handler: () => {
    throw new Error('the fixture failed on purpose');
  },
});

export const cooperative = defineTool({
  name: 'cooperative',
  description: 'Spins but checks ctx.checkpoint() often; counts how far it got.',
  inputSchema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] },
  blocking: true,
  module: import.meta.url,
  handler: ({ ms }, ctx) => {
    const until = Date.now() + ms;
    while (Date.now() < until) ctx.checkpoint();
    return 'finished';
  },
});

export const progress = defineTool({
  name: 'progress',
  description: 'Reports progress steps, a few ms apart, then returns.',
  inputSchema: { type: 'object', properties: { steps: { type: 'integer' } }, required: ['steps'] },
  blocking: true,
  module: import.meta.url,
  handler: ({ steps }, ctx) => {
    for (let step = 1; step <= steps; step++) {
      const until = Date.now() + 30;
      while (Date.now() < until) ctx.checkpoint();
      ctx.progress(step, steps, `step ${step}`);
      ctx.log('info', { step });
    }
    return `${steps} steps`;
  },
});

export const busy = defineTool({
  name: 'busy',
  description: 'A busy loop with no checkpoints.',
  inputSchema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] },
  blocking: true,
  module: import.meta.url,
  handler: ({ ms }) => {
    const until = Date.now() + ms;
    while (Date.now() < until) {}
    return `busy ${ms}`;
  },
});

export const runaway = defineTool({
  name: 'runaway',
  description: 'A busy loop with no checkpoints and a 500 ms deadline of its own.',
  inputSchema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] },
  blocking: true,
  module: import.meta.url,
  timeoutMs: 500,
  handler: ({ ms }) => {
    const until = Date.now() + ms;
    while (Date.now() < until) {}
    return `ran ${ms}`;
  },
});

export const askBlocking = defineTool({
  name: 'ask_blocking',
  description: 'Asks the user for a name from inside a pool thread (ctx.elicit).',
  inputSchema: { type: 'object', properties: {} },
  blocking: true,
  module: import.meta.url,
  handler: async (_args, ctx) => {
    const answer = await ctx.elicit!({
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    return `${answer.action}: ${JSON.stringify(answer.content ?? {})}`;
  },
});

export const destructuring = defineTool({
  name: 'destructuring',
  description: "Takes ctx's methods apart in its parameter list, as many handlers are written.",
  inputSchema: noArgs,
  blocking: true,
  module: import.meta.url,
  handler: (_args, { checkpoint, progress, log }) => {
    checkpoint();
    progress(1, 1);
    log('info', 'destructured');
    return 'unbound methods work';
  },
});

export const lingering = defineTool({
  name: 'lingering',
  description: 'Returns at once, but leaves a timer that looks at ctx after the call is over.',
  inputSchema: { type: 'object', properties: { afterMs: { type: 'integer' } }, required: ['afterMs'] },
  blocking: true,
  module: import.meta.url,
  handler: ({ afterMs }, ctx) => {
    setTimeout(() => ctx.checkpoint(), afterMs);
    return 'returned';
  },
});

export const idle = defineTool({
  name: 'idle',
  description: 'Waits on a timer without ever looking at ctx, leaving its thread free for timers.',
  inputSchema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] },
  blocking: true,
  module: import.meta.url,
  handler: async ({ ms }) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return `idled ${ms}`;
  },
});

export const announced = defineTool({
  name: 'announced',
  description: 'Logs that it started, then spins without checkpoints: a log line proves it ran.',
  inputSchema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] },
  blocking: true,
  module: import.meta.url,
  handler: ({ ms }, ctx) => {
    ctx.log('info', 'announced started');
    const until = Date.now() + ms;
    while (Date.now() < until) {}
    return `spun ${ms}`;
  },
});

export const whichThread = defineTool({
  name: 'which_thread',
  description: 'Spins a little, then says which pool thread ran it.',
  inputSchema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] },
  blocking: true,
  module: import.meta.url,
  handler: async ({ ms }) => {
    const until = Date.now() + ms;
    while (Date.now() < until) {}
    const { threadId } = await import('node:worker_threads');
    return String(threadId);
  },
});

export const blockedInNative = defineTool({
  name: 'blocked_in_native',
  description:
    'Opens a FIFO for reading: the open blocks in the kernel until a writer comes, and a termination cannot interrupt it.',
  inputSchema: { type: 'object', properties: { fifo: { type: 'string' } }, required: ['fifo'] },
  blocking: true,
  module: import.meta.url,
  timeoutMs: 200,
  handler: async ({ fifo }) => {
    const { readFileSync } = await import('node:fs');
    return readFileSync(fifo, 'utf8');
  },
});
