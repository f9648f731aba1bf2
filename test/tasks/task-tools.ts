/**
 * Tools the tasks tests run as tasks: a runaway spin with no deadline of its own (only
 * terminating its thread stops it), a tool that asks the client during its task, and one with a
 * short deadline.
 */
import { defineTool } from '../../lib/tool.js';

export const spinTask = defineTool({
  name: 'spin',
  description: 'Burns CPU for ms milliseconds without ever looking at its cancel flag.',
  inputSchema: { type: 'object', properties: { ms: { type: 'integer', minimum: 0 } }, required: ['ms'] },
  blocking: true,
  module: import.meta.url,
  export: 'spinTask',
  task: 'optional',
  handler: ({ ms }) => {
    const until = Date.now() + ms;
    let spins = 0;
    while (Date.now() < until) spins++;
    return `spun ${ms} ms (${spins} iterations)`;
  },
});

export const askTask = defineTool({
  name: 'ask',
  description: 'Asks the user for a word in a pool thread, then spins a little and echoes it.',
  inputSchema: { type: 'object', properties: {} },
  blocking: true,
  module: import.meta.url,
  export: 'askTask',
  task: 'optional',
  handler: async (_args, ctx) => {
    if (!ctx.elicit) throw new Error('no client to ask');
    const answer = await ctx.elicit(
      {
        message: 'A word?',
        requestedSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
      },
      { key: 'word' },
    );
    return `you said ${String(answer.content?.word)}`;
  },
});

export const shortDeadline = defineTool({
  name: 'short_deadline',
  description: 'Spins past its own 300 ms deadline.',
  inputSchema: { type: 'object', properties: {} },
  blocking: true,
  module: import.meta.url,
  export: 'shortDeadline',
  task: 'required',
  timeoutMs: 300,
  handler: () => {
    for (;;) {}
  },
});

export const spinProcess = defineTool({
  name: 'spin_process',
  description: 'Writes its process id to `pidFile`, then burns CPU in a pool child process.',
  inputSchema: {
    type: 'object',
    properties: { pidFile: { type: 'string' }, ms: { type: 'integer' } },
    required: ['pidFile', 'ms'],
  },
  blocking: true,
  isolation: 'process',
  module: import.meta.url,
  export: 'spinProcess',
  task: 'optional',
  handler: async ({ pidFile, ms }) => {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(pidFile, String(process.pid));
    const until = Date.now() + ms;
    while (Date.now() < until) {}
    return 'done';
  },
});
