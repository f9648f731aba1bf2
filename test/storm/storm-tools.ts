/**
 * The storm suite's blocking tools. This module is imported by every pool thread on its first call
 * to one of them, and that import is slow (slow-graph.ts), so deadlines and cancels land while a
 * thread is still loading as well as while it runs.
 */
import { defineTool } from '../../lib/tool.js';
import { loadedAt } from './slow-graph.js';

const msArgs = { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] } as const;

function spinFor(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {}
}

/** A loop that never looks at its flag: only termination stops it. */
export const spin = defineTool({
  name: 'spin',
  inputSchema: msArgs,
  blocking: true,
  module: import.meta.url,
  handler: ({ ms }) => {
    spinFor(ms);
    return `spun ${ms} (${loadedAt > 0})`;
  },
});

/** Looks at its flag: stops by itself within the grace. */
export const polite = defineTool({
  name: 'polite',
  inputSchema: msArgs,
  blocking: true,
  module: import.meta.url,
  handler: ({ ms }, ctx) => {
    const until = Date.now() + ms;
    while (Date.now() < until) ctx.checkpoint();
    return `polite ${ms}`;
  },
});

/** A 1 ms deadline of its own: nearly always ends while its thread loads or just started. */
export const hasty = defineTool({
  name: 'hasty',
  inputSchema: msArgs,
  blocking: true,
  timeoutMs: 1,
  module: import.meta.url,
  handler: ({ ms }) => {
    spinFor(ms);
    return `hasty ${ms}`;
  },
});

/** Heap caps of its own, so it runs in a pool of its own that starts empty and grows on demand. */
export const capped = defineTool({
  name: 'capped',
  inputSchema: msArgs,
  blocking: true,
  resourceLimits: { maxOldGenerationSizeMb: 64 },
  module: import.meta.url,
  handler: ({ ms }) => {
    spinFor(ms);
    return `capped ${ms}`;
  },
});

/** Runs in a pool process: its stops are SIGKILLs of a child process. */
export const isolated = defineTool({
  name: 'isolated',
  inputSchema: msArgs,
  blocking: true,
  isolation: 'process',
  module: import.meta.url,
  handler: ({ ms }) => {
    spinFor(ms);
    return `isolated ${ms}`;
  },
});

export const stormTools = [spin, polite, hasty, capped, isolated];
