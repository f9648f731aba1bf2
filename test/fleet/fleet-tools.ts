/**
 * The blocking tools the fleet tests run on `weft worker` processes: a runaway spin (only
 * terminating its thread stops it), one that says which worker process ran it, progress and log
 * from a worker, a value that cannot be sent as JSON, a question (multi-round), and an idempotent
 * tool that opted in to retries. The router scripts and the workers load this same module.
 */
import { defineTool } from '../../lib/tool.js';

export const spin = defineTool({
  name: 'spin',
  description: 'Burns CPU for ms milliseconds without ever looking at its cancel flag.',
  inputSchema: { type: 'object', properties: { ms: { type: 'integer', minimum: 0 } }, required: ['ms'] },
  blocking: true,
  module: import.meta.url,
  export: 'spin',
  task: 'optional',
  handler: ({ ms }) => {
    const until = Date.now() + ms;
    let spins = 0;
    while (Date.now() < until) spins++;
    return `spun ${ms} ms on ${process.pid} (${spins} iterations)`;
  },
});

export const whoami = defineTool({
  name: 'whoami',
  description: 'Spins ms milliseconds, then answers with the pid of the process that ran it.',
  inputSchema: { type: 'object', properties: { ms: { type: 'integer', minimum: 0 } } },
  blocking: true,
  module: import.meta.url,
  export: 'whoami',
  handler: ({ ms }) => {
    const until = Date.now() + (ms ?? 0);
    while (Date.now() < until) {}
    return String(process.pid);
  },
});

export const steps = defineTool({
  name: 'steps',
  description: 'Reports n progress steps and one log line, then answers.',
  inputSchema: { type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, required: ['n'] },
  blocking: true,
  module: import.meta.url,
  export: 'steps',
  handler: async ({ n }, ctx) => {
    ctx.log('info', { starting: n });
    for (let step = 1; step <= n; step++) {
      ctx.progress(step, n, `step ${step}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return `did ${n} steps`;
  },
});

export const bigint = defineTool({
  name: 'bigint',
  description: 'Returns a BigInt, which no JSON can carry.',
  inputSchema: { type: 'object', properties: {} },
  blocking: true,
  module: import.meta.url,
  export: 'bigint',
  handler: () => ({ content: [{ type: 'text', text: 'x' }], structuredContent: { n: 10n } }),
});

export const greet = defineTool({
  name: 'greet',
  description: 'Asks the client for a name, then greets it.',
  inputSchema: { type: 'object', properties: {} },
  blocking: true,
  module: import.meta.url,
  export: 'greet',
  handler: async (_args, ctx) => {
    if (!ctx.elicit) throw new Error('no client to ask');
    const answer = await ctx.elicit(
      {
        message: 'Your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      },
      { key: 'name' },
    );
    const name = (answer.content as { name?: string } | undefined)?.name ?? 'nobody';
    return `hello ${name}`;
  },
});

export const retried = defineTool({
  name: 'retried',
  description: 'Idempotent: spins ms, answers its pid; runs again on another worker if its worker dies.',
  inputSchema: { type: 'object', properties: { ms: { type: 'integer', minimum: 0 } }, required: ['ms'] },
  annotations: { idempotentHint: true },
  fleetRetries: 1,
  blocking: true,
  module: import.meta.url,
  export: 'retried',
  handler: ({ ms }) => {
    const until = Date.now() + ms;
    while (Date.now() < until) {}
    return String(process.pid);
  },
});

export const local = defineTool({
  name: 'local_pid',
  description: 'Runs on the server itself (placement local): answers its pid.',
  inputSchema: { type: 'object', properties: {} },
  blocking: true,
  placement: 'local',
  module: import.meta.url,
  export: 'local',
  handler: () => String(process.pid),
});
