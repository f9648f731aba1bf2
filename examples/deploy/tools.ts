// tools.ts: the deploy recipe's tools. The replicas register them (server.ts); `weft worker` loads
// this module for the blocking ones, so a replica and a worker cannot disagree about a tool.
import { defineTool } from 'weft-mcp/tool';

/** Burns `ms` of CPU on a thread; `checkpoint` lets a deadline or a cancel stop it. */
function spin(ms: number, checkpoint: () => void): number {
  const until = Date.now() + ms;
  let rounds = 0;
  while (Date.now() < until) {
    rounds++;
    if (rounds % 1024 === 0) checkpoint();
  }
  return rounds;
}

/** Blocking, on the replica's own pool. */
export const hash = defineTool({
  name: 'hash',
  description:
    'Spins ms milliseconds of CPU on a pool thread of the replica, then says which process ran it.',
  inputSchema: { type: 'object', properties: { ms: { type: 'integer', minimum: 0, maximum: 5_000 } } },
  blocking: true,
  placement: 'local',
  module: import.meta.url,
  export: 'hash',
  handler: ({ ms }, ctx) => `spun ${spin(ms ?? 10, ctx.checkpoint)} rounds in ${process.pid}`,
});

/** Blocking, on a `weft worker` of the fleet (any machine sharing the Redis). */
export const crunch = defineTool({
  name: 'crunch',
  description: 'Spins ms milliseconds of CPU on a fleet worker, then says which process ran it.',
  inputSchema: { type: 'object', properties: { ms: { type: 'integer', minimum: 0, maximum: 60_000 } } },
  blocking: true,
  placement: 'fleet',
  module: import.meta.url,
  export: 'crunch',
  task: 'optional',
  handler: ({ ms }, ctx) => `crunched ${spin(ms ?? 10, ctx.checkpoint)} rounds in ${process.pid}`,
});

/** A task: answered at once with a task id, its result read later from any replica. */
export const report = defineTool({
  name: 'report',
  description: 'Waits ms milliseconds (a report being written), as a task when the client supports them.',
  inputSchema: { type: 'object', properties: { ms: { type: 'integer', minimum: 0, maximum: 600_000 } } },
  task: 'optional',
  handler: async ({ ms }, ctx) => {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, ms ?? 1_000);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(ctx.signal.reason);
      });
    });
    return `report ready after ${ms ?? 1_000} ms`;
  },
});
