/**
 * The tools of the replicas-and-fleet binding suite. Replicas (binding-replica.ts) register them
 * and send their calls to the fleet; `weft worker` processes load this same module and run them.
 */
import { defineTool } from '../../lib/tool.js';
import { sawAuth } from './binding-tools.js';

export const fleetWhoami = defineTool({
  name: 'fleet_whoami',
  description: 'On a fleet worker: waits ms (watching its cancel flag), then reports ctx.auth and its pid.',
  inputSchema: { type: 'object', properties: { ms: { type: 'integer', minimum: 0 } } },
  blocking: true,
  module: import.meta.url,
  export: 'fleetWhoami',
  task: 'optional',
  handler: async ({ ms }, ctx) => {
    const until = Date.now() + (ms ?? 0);
    while (Date.now() < until) {
      ctx.checkpoint();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return JSON.stringify({ pid: process.pid, ...JSON.parse(sawAuth(ctx.auth)) });
  },
});

export const localAsk = defineTool({
  name: 'local_ask',
  description: 'Asks for a word in rounds (explicit form) on the replica, then echoes it.',
  inputSchema: { type: 'object', properties: {} },
  placement: 'local',
  blocking: true,
  module: import.meta.url,
  export: 'localAsk',
  handler: async (_args, ctx) => {
    if (!ctx.elicit) throw new Error('no client to ask');
    const answer = await ctx.elicit(
      { message: 'A word?', requestedSchema: { type: 'object', properties: { word: { type: 'string' } } } },
      { key: 'word' },
    );
    return `you said ${String(answer.content?.word)}`;
  },
});
