#!/usr/bin/env node
/**
 * The server under the soak (benchmarks/soak): inline and blocking tools, tasks, a multi-round tool,
 * served on stdio and Streamable HTTP (both eras) from one process, so one pid's memory, threads and
 * descriptors carry the whole mixed load.
 *
 * Every `--sample-ms` it writes one JSON line on stderr: live heap (after a full GC, when run with
 * --expose-gc, so garbage not yet collected does not read as growth) and the event-loop delay over
 * the interval (measured before that GC, so the GC's own pause is not counted as load).
 * Usage: node --expose-gc soak-server.js --http PORT [--threads N] [--sample-ms 2000] [--fairness off]
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { getHeapSpaceStatistics } from 'node:v8';
import { abortableSleep } from '../../lib/abortable-sleep.js';
import { McpServer } from '../../lib/index.js';
import { burn, endThread, failBlocking, taskSleep } from './soak-tools.js';

const { values } = parseArgs({
  options: {
    http: { type: 'string' },
    threads: { type: 'string', default: '2' },
    'sample-ms': { type: 'string', default: '2000' },
    fairness: { type: 'string', default: 'on' },
  },
});

const server = new McpServer({
  name: 'weft-soak',
  version: '0.1.0',
  timeoutMs: 10_000,
  pool: { maxThreads: Number(values.threads) },
  // `--fairness off` takes the fair scheduler out, to tell its per-caller state from the rest.
  ...(values.fairness === 'off' ? { fairness: false as const } : {}),
  // Ended tasks are kept for their TTL (an hour by default); a short one lets the task table reach
  // its steady size early in the run, so what grows after it is a leak, not the TTL.
  tasks: { ttlMs: 15_000 },
})
  .tool({
    name: 'echo',
    description: 'Returns its text (inline).',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
      additionalProperties: false,
    },
    handler: ({ text }) => text,
  })
  .tool({
    name: 'wait',
    description: 'Waits ms milliseconds (inline); a cancel or its 300 ms deadline stops it.',
    inputSchema: {
      type: 'object',
      properties: { ms: { type: 'integer', minimum: 0 } },
      required: ['ms'],
      additionalProperties: false,
    },
    timeoutMs: 300,
    handler: async ({ ms }, ctx) => {
      await abortableSleep(ms, ctx.signal);
      return `waited ${ms} ms`;
    },
  })
  .tool({
    name: 'fail_inline',
    description: 'Throws on the event loop (a tool error).',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    handler: () => {
      throw new Error('fail_inline failed on purpose');
    },
  })
  .tool({
    name: 'ask_name',
    description: "Asks the user's name (one elicitation: live in a legacy session, a round in 2026-07-28).",
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    handler: async (_args, ctx) => {
      if (!ctx.elicit) throw new Error('This call has no client to ask');
      const answer = await ctx.elicit(
        {
          message: 'What is your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        },
        { key: 'name' },
      );
      return `Hello, ${String(answer.content?.name ?? 'stranger')}!`;
    },
  })
  .tool(burn)
  .tool(failBlocking)
  .tool(endThread)
  .tool(taskSleep);

await server.listen({
  stdio: true,
  ...(values.http === undefined ? {} : { http: { port: Number(values.http), host: '127.0.0.1' } }),
});

const gc = (globalThis as { gc?: () => void }).gc;
const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
const sampler = setInterval(() => {
  const loop = { p50: delay.percentile(50) / 1e6, p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 };
  gc?.();
  delay.reset();
  // Compiled code is counted apart: V8 keeps optimising the hot paths for minutes, and code the
  // server's own modules compile to is bounded by them, not by what callers make it keep.
  let codeUsed = 0;
  for (const space of getHeapSpaceStatistics())
    if (space.space_name.startsWith('code')) codeUsed += space.space_used_size;
  const memory = process.memoryUsage();
  const heapUsed = memory.heapUsed - codeUsed;
  // Off the heap, and apart from RSS: Buffers and other memory V8 objects hold outside the heap,
  // so that RSS growth with a flat heap can be told from buffers that pile up.
  const { external } = memory;
  process.stderr.write(
    `${JSON.stringify({ soak: 'sample', at: Date.now(), heapUsed, codeUsed, external, loop, gc: !!gc })}\n`,
  );
}, Number(values['sample-ms']));
sampler.unref();
