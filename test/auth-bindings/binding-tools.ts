/**
 * Tools, a prompt and resources for the binding suites. Each handler kind reports what it saw as
 * `ctx.auth` (and whether it was frozen), so a suite can check that the principal reached it.
 */
import { defineTool, inputRequired, type Principal } from '../../lib/index.js';

/** What a handler saw of its caller. */
export function sawAuth(auth: Principal | undefined): string {
  return JSON.stringify({
    auth: auth ?? null,
    frozen: auth === undefined ? null : Object.isFrozen(auth) && Object.isFrozen(auth.scopes),
  });
}

export const whoamiInline = defineTool({
  name: 'whoami_inline',
  description: 'Reports ctx.auth, inline.',
  inputSchema: { type: 'object', properties: {} },
  handler: (_args, ctx) => sawAuth(ctx.auth),
});

export const whoamiThread = defineTool({
  name: 'whoami_thread',
  description: 'Reports ctx.auth, from a pool thread.',
  inputSchema: { type: 'object', properties: {} },
  blocking: true,
  module: import.meta.url,
  export: 'whoamiThread',
  handler: (_args, ctx) => sawAuth(ctx.auth),
});

export const whoamiProcess = defineTool({
  name: 'whoami_process',
  description: 'Reports ctx.auth, from a pool process.',
  inputSchema: { type: 'object', properties: {} },
  blocking: true,
  isolation: 'process',
  module: import.meta.url,
  export: 'whoamiProcess',
  handler: (_args, ctx) => sawAuth(ctx.auth),
});

export const whoamiInner = defineTool({
  name: 'whoami_inner',
  description: 'Reports what whoami_thread saw when called through ctx.tools().call.',
  inputSchema: { type: 'object', properties: {} },
  handler: async (_args, ctx) => {
    const result = await ctx.tools().call('whoami_thread', {});
    return (result.content[0] as { text: string }).text;
  },
});

export const whoamiViews = defineTool({
  name: 'whoami_views',
  description:
    'Reads notes://whoami and gets whoami_prompt through ctx.resources() / ctx.prompts(), and tries notes://admin.',
  inputSchema: { type: 'object', properties: {} },
  handler: async (_args, ctx) => {
    const [resource] = await ctx.resources().read('notes://whoami');
    const prompt = await ctx.prompts().get('whoami_prompt', {});
    const admin = await ctx
      .resources()
      .read('notes://admin')
      .then(
        () => 'read',
        (error: Error & { code?: number }) => error.code,
      );
    const promptText = (prompt.messages[0]!.content as { text: string }).text;
    // What the views list is what this caller could list itself.
    const listed = [
      ...(await ctx.tools().list()).map((tool) => tool.name),
      ...(await ctx.prompts().list()).map((entry) => entry.name),
      ...(await ctx.resources().list()).map((entry) => entry.uri),
      ...(await ctx.resources().templates()).map((entry) => entry.uriTemplate),
    ];
    return JSON.stringify({
      resource: JSON.parse(String(resource?.text)),
      prompt: JSON.parse(promptText),
      admin,
      listed,
    });
  },
});

/** Seen by beforeTask, then reported by the task's own handler, both in one result. */
let beforeTaskSaw = '';
export const whoamiTask = defineTool({
  name: 'whoami_task',
  description: 'A task that reports what beforeTask and its handler saw as ctx.auth.',
  inputSchema: { type: 'object', properties: {} },
  task: 'optional',
  beforeTask: (_args, ctx) => {
    beforeTaskSaw = sawAuth(ctx.auth);
  },
  handler: (_args, ctx) =>
    JSON.stringify({ beforeTask: JSON.parse(beforeTaskSaw), task: JSON.parse(sawAuth(ctx.auth)) }),
});

export const writeNote = defineTool({
  name: 'write_note',
  description: 'Needs notes:write.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  scopes: ['notes:write'],
  handler: ({ text }) => `wrote ${String(text)}`,
});

export const readNote = defineTool({
  name: 'read_note',
  description: 'Needs notes:read.',
  inputSchema: { type: 'object', properties: {} },
  scopes: ['notes:read'],
  handler: () => 'a note',
});

/** A task that runs until it is cancelled (checks its signal), so a suite can poll and cancel it. */
export const longTask = defineTool({
  name: 'long_task',
  description: 'Waits until cancelled or 60 s.',
  inputSchema: { type: 'object', properties: {} },
  task: 'optional',
  handler: (_args, ctx) =>
    new Promise<string>((resolve) => {
      const timer = setTimeout(() => resolve('done'), 60_000);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve('stopped');
      });
    }),
});

/** How often ask_twice's handler has run past its question (a refused retry must not add one). */
export const answeredRuns = { count: 0 };
export const askTwice = defineTool({
  name: 'ask_twice',
  description: 'Asks for a word in rounds (explicit form), then echoes it.',
  inputSchema: { type: 'object', properties: {} },
  handler: (_args, ctx) => {
    const answer = ctx.inputResponses?.word as { content?: { word?: string } } | undefined;
    if (answer === undefined) {
      return inputRequired(
        {
          word: {
            method: 'elicitation/create',
            params: {
              message: 'A word?',
              requestedSchema: { type: 'object', properties: { word: { type: 'string' } } },
            },
          },
        },
        { askedBy: ctx.auth?.subject ?? null },
      );
    }
    answeredRuns.count++;
    return `you said ${answer.content?.word}`;
  },
});
