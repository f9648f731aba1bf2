/**
 * Tools the multi-round tests need beyond the conformance fixtures: one that asks from a pool
 * process (`isolation: 'process'`), and one that counts how often the code before its question
 * runs, which is the rule authors must know (it runs again on every round).
 */
import { defineTool } from '../../lib/tool.js';

const NO_ARGUMENTS = { type: 'object', properties: {}, additionalProperties: false } as const;

export const askInProcess = defineTool({
  name: 'ask_in_process',
  description: "Asks the user's name from a pool process",
  blocking: true,
  isolation: 'process',
  module: import.meta.url,
  inputSchema: NO_ARGUMENTS,
  handler: async (_args, ctx) => {
    if (!ctx.elicit) throw new Error('no way to ask the client from this process');
    const answer = await ctx.elicit({
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    return `Hello from pid ${process.pid}, ${String(answer.content?.name)}!`;
  },
});

let runsBeforeQuestion = 0;

export const countedQuestion = defineTool({
  name: 'counted_question',
  description: 'Counts the runs of the code before its one question, then asks it',
  inputSchema: NO_ARGUMENTS,
  handler: async (_args, ctx) => {
    runsBeforeQuestion++;
    if (!ctx.elicit) throw new Error('no client to ask');
    const answer = await ctx.elicit({
      message: 'Go on?',
      requestedSchema: { type: 'object', properties: { go: { type: 'boolean' } }, required: ['go'] },
    });
    return `runs before the question: ${runsBeforeQuestion}; action: ${answer.action}`;
  },
});
