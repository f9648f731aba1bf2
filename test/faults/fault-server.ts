/**
 * The fault matrix's server, run as a child process over stdio: every fault tool plus a few inline
 * ones (healthy neighbours, handlers that ignore their signal, probes for hostile arguments).
 *
 *   node dist/test/faults/fault-server.js [--max-result-bytes N] [--shutdown-grace-ms N]
 *                                         [--threads N] [--max-queue N] [--max-calls-in-flight N]
 */
import { parseArgs } from 'node:util';
import { abortableSleep } from '../../lib/abortable-sleep.js';
import { McpServer } from '../../lib/index.js';
import { FAULT_TOOLS } from './fault-tools.js';
import { execSleepColdStart, PROCESS_FAULT_TOOLS } from './process-fault-tools.js';

const { values } = parseArgs({
  options: {
    'max-result-bytes': { type: 'string', default: '1048576' },
    'shutdown-grace-ms': { type: 'string', default: '2000' },
    threads: { type: 'string', default: '2' },
    'max-queue': { type: 'string', default: '256' },
    'max-calls-in-flight': { type: 'string', default: '10000' },
  },
  strict: true,
});

const server = new McpServer({
  name: 'weft-faults',
  version: '0.0.0',
  maxResultBytes: Number(values['max-result-bytes']),
  shutdownGraceMs: Number(values['shutdown-grace-ms']),
  maxCallsInFlight: Number(values['max-calls-in-flight']),
  pool: { maxThreads: Number(values.threads), maxQueue: Number(values['max-queue']), graceMs: 100 },
});

for (const tool of [...FAULT_TOOLS, ...PROCESS_FAULT_TOOLS]) server.tool(tool);

server
  .tool({
    name: 'echo',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    handler: ({ text }) => text,
  })
  .tool({
    name: 'sleep',
    description: 'Waits ms milliseconds (inline), stopping early when abandoned.',
    inputSchema: { type: 'object', properties: { ms: { type: 'integer', minimum: 0 } }, required: ['ms'] },
    handler: async ({ ms }, ctx) => {
      await abortableSleep(ms, ctx.signal);
      return `slept ${ms} ms`;
    },
  })
  .tool({
    name: 'inline_throws',
    inputSchema: { type: 'object' },
    handler: () => {
      throw new Error('inline handler failed on purpose');
    },
  })
  .tool({
    name: 'inline_ignores_signal',
    description: 'Never settles and never looks at ctx.signal.',
    inputSchema: { type: 'object' },
    timeoutMs: 300,
    handler: () => new Promise<string>(() => {}),
  })
  .tool({
    name: 'inline_stray_rejection',
    description: 'Starts a promise that rejects with no one listening, then answers normally.',
    inputSchema: { type: 'object' },
    handler: () => {
      Promise.reject(new Error('a stray rejection from tool code'));
      return 'answered';
    },
  })
  .tool({
    name: 'inline_async_throw',
    description: 'Throws from a timer on the event loop: an uncaught exception that ends the server.',
    inputSchema: { type: 'object' },
    handler: () => {
      setTimeout(() => {
        throw new Error('an uncaught exception from inline tool code');
      }, 50);
      return 'scheduled';
    },
  })
  .tool({
    name: 'inspect_args',
    description: 'Reports what arrived and whether any prototype was polluted.',
    inputSchema: { type: 'object' },
    handler: (args) => {
      const probe = {} as Record<string, unknown>;
      return JSON.stringify({
        ownKeys: Object.keys(args),
        argsPrototypeIsObject: Object.getPrototypeOf(args) === Object.prototype,
        polluted:
          probe.polluted !== undefined ||
          (Object.prototype as Record<string, unknown>).polluted !== undefined,
        constructorIsObject: probe.constructor === Object,
      });
    },
  });

await server.listen({ stdio: true });
// Registered after listen() warmed the process pools up, so that its first call starts cold.
server.tool(execSleepColdStart);
