/**
 * Tools whose handlers use the same ctx members wherever they run (inline, pool thread, pool
 * process), for the ctx tests. Each blocking one names its own module, as users write them.
 */
import { defineTool } from '../../lib/tool.js';
import type { ToolContext } from '../../lib/tools/tool-context.js';

const noArgs = { type: 'object', properties: {} } as const;

/** Asks for a name and returns the answer, from a pool child process. */
export const askInProcess = defineTool({
  name: 'ask_in_process',
  description: 'Asks the user for a name from a process-isolated handler (ctx.elicit).',
  inputSchema: noArgs,
  blocking: true,
  isolation: 'process',
  module: import.meta.url,
  handler: async (_args, ctx) => {
    const answer = await ctx.elicit!({
      message: `Your name? (asked by pid ${process.pid})`,
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    return `${answer.action}: ${JSON.stringify(answer.content ?? {})} from ${process.pid}`;
  },
});

/** Three calls at once, the middle one to a tool that does not exist. */
async function fanOut(ctx: ToolContext): Promise<string> {
  const outcomes = await ctx.tools().callAll([
    { name: 'echo_text', arguments: { text: 'first' } },
    { name: 'no_such_tool', arguments: {} },
    { name: 'echo_text', arguments: { text: 'third' } },
  ]);
  return JSON.stringify(
    outcomes.map((outcome) =>
      outcome.ok
        ? { name: outcome.name, ok: true, text: (outcome.result.content[0] as { text?: string }).text }
        : {
            name: outcome.name,
            ok: false,
            error: outcome.error.message,
            isError: outcome.error instanceof Error,
          },
    ),
  );
}

export const echoText = defineTool({
  name: 'echo_text',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  tags: ['text'],
  handler: ({ text }) => text,
});

export const fanOutInline = defineTool({
  name: 'fan_out_inline',
  inputSchema: noArgs,
  handler: (_args, ctx) => fanOut(ctx),
});

export const fanOutThread = defineTool({
  name: 'fan_out_thread',
  inputSchema: noArgs,
  blocking: true,
  module: import.meta.url,
  handler: (_args, ctx) => fanOut(ctx),
});

export const fanOutProcess = defineTool({
  name: 'fan_out_process',
  inputSchema: noArgs,
  blocking: true,
  isolation: 'process',
  module: import.meta.url,
  handler: (_args, ctx) => fanOut(ctx),
});

/** Registered by `add_from_worker` at run time, from a pool thread. */
export const lateTool = defineTool({
  name: 'late_tool',
  description: 'Added from a pool thread through ctx.tools().add.',
  inputSchema: noArgs,
  tags: ['late'],
  blocking: true,
  module: import.meta.url,
  handler: () => `late tool ran in a thread: ${process.pid > 0}`,
});

/**
 * Tries what cannot cross a thread (an inline handler, a resource reader), then adds a
 * module-defined tool and calls it; returns what each step said.
 */
export const addFromWorker = defineTool({
  name: 'add_from_worker',
  inputSchema: noArgs,
  blocking: true,
  module: import.meta.url,
  handler: async (_args, ctx) => {
    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => 'accepted',
        (error: Error) => error.message,
      );
    const inline = await refusal(
      ctx.tools().add({ name: 'inline_from_worker', inputSchema: noArgs, handler: () => 'never' }),
    );
    const resource = await refusal(ctx.resources().add({ uri: 'app://x', name: 'x', read: () => 'x' }));
    await ctx.tools().add(lateTool);
    const called = await ctx.tools().call('late_tool');
    const found = await ctx.tools().findMany(['late_tool', 'missing', 'echo_text']);
    const tagged = await ctx.tools().list({ tags: ['late', 'text'] });
    return JSON.stringify({
      inline,
      resource,
      called: (called.content[0] as { text?: string }).text,
      found: found.map((tool) => (tool as { name: string }).name),
      tagged: tagged.map((tool) => (tool as { name: string }).name),
    });
  },
});

/** The resources and prompts namespaces from a pool process. */
export const readFromProcess = defineTool({
  name: 'read_from_process',
  inputSchema: noArgs,
  blocking: true,
  isolation: 'process',
  module: import.meta.url,
  handler: async (_args, ctx) => {
    const contents = await ctx.resources().read('app://greeting');
    const subscribed = await ctx.resources().isSubscribed('app://greeting');
    const prompt = await ctx.prompts().get('hello', { who: 'process' });
    const prompts = await ctx.prompts().list({ tags: ['greeting'] });
    await ctx.resources().notifyUpdated('app://greeting');
    return JSON.stringify({
      text: contents[0]?.text,
      subscribed,
      prompt: (prompt.messages[0]?.content as { text?: string } | undefined)?.text,
      prompts: prompts.map((entry) => (entry as { name: string }).name),
    });
  },
});

/** What the inline tool below saw; read in the server's own process (the inline tool runs there). */
export const innerCalls = { started: 0, aborted: 0 };

/** Waits until its call is cancelled, and counts that it was. */
export const waitsForCancel = defineTool({
  name: 'waits_for_cancel',
  inputSchema: noArgs,
  handler: (_args, ctx) => {
    innerCalls.started++;
    return new Promise((resolve) =>
      ctx.signal.addEventListener('abort', () => {
        innerCalls.aborted++;
        resolve('stopped');
      }),
    );
  },
});

export const outerInThread = defineTool({
  name: 'outer_in_thread',
  inputSchema: noArgs,
  blocking: true,
  module: import.meta.url,
  handler: (_args, ctx) => ctx.tools().call('waits_for_cancel'),
});

export const outerInProcess = defineTool({
  name: 'outer_in_process',
  inputSchema: noArgs,
  blocking: true,
  isolation: 'process',
  module: import.meta.url,
  handler: (_args, ctx) => ctx.tools().call('waits_for_cancel'),
});
