/**
 * Blocking tools for the telemetry tests: ones that make spans of their own with the API inside
 * their pool thread or process, and ones that end every way a call can end.
 */
import { trace } from '@opentelemetry/api';
import { defineTool } from '../../lib/tool.js';

const noArgs = { type: 'object', additionalProperties: false } as const;

/** Makes a span with a child inside whatever runs it, and says which trace it saw. */
function tracedWork(): string {
  const tracer = trace.getTracer('telemetry-tools');
  return tracer.startActiveSpan('inner work', (span) => {
    span.setAttribute('work.size', 3);
    tracer.startSpan('innermost').end();
    span.addEvent('halfway', { step: 1 });
    span.end();
    return span.spanContext().traceId;
  });
}

export const traced = defineTool({
  name: 'traced',
  description: 'Makes spans in its pool thread.',
  inputSchema: noArgs,
  blocking: true,
  module: import.meta.url,
  handler: () => tracedWork(),
});

export const tracedProcess = defineTool({
  name: 'traced_process',
  description: 'Makes spans in its pool process.',
  inputSchema: noArgs,
  blocking: true,
  isolation: 'process',
  module: import.meta.url,
  handler: () => tracedWork(),
});

export const spin = defineTool({
  name: 'spin',
  description: 'Busy for ms milliseconds, checking its flag.',
  inputSchema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] },
  blocking: true,
  module: import.meta.url,
  handler: ({ ms }, ctx) => {
    const until = Date.now() + ms;
    while (Date.now() < until) ctx.checkpoint();
    return 'spun';
  },
});

export const crash = defineTool({
  name: 'crash',
  description: 'Kills its worker thread.',
  inputSchema: noArgs,
  blocking: true,
  module: import.meta.url,
  handler: () => {
    process.exit(3);
  },
});

export const fail = defineTool({
  name: 'fail',
  description: 'Throws.',
  inputSchema: noArgs,
  blocking: true,
  module: import.meta.url,
  handler: () => {
    throw new Error('failed on purpose');
  },
});

export const tasked = defineTool({
  name: 'tasked',
  description: 'A blocking tool that may run as a task.',
  inputSchema: noArgs,
  blocking: true,
  task: 'optional',
  module: import.meta.url,
  handler: () => 'task done',
});

export const spinProcess = defineTool({
  name: 'spin_process',
  description: 'Busy for ms milliseconds in its pool process.',
  inputSchema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] },
  blocking: true,
  isolation: 'process',
  module: import.meta.url,
  timeoutMs: 1_000,
  handler: ({ ms }) => {
    const until = Date.now() + ms;
    while (Date.now() < until);
    return 'spun';
  },
});

export const crashProcess = defineTool({
  name: 'crash_process',
  description: 'Kills its pool process.',
  inputSchema: noArgs,
  blocking: true,
  isolation: 'process',
  module: import.meta.url,
  handler: () => {
    process.exit(3);
  },
});

export const slow = defineTool({
  name: 'slow',
  description: 'Busy for ms milliseconds, checking its flag, past its own 500 ms deadline.',
  inputSchema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] },
  blocking: true,
  module: import.meta.url,
  timeoutMs: 500,
  handler: ({ ms }, ctx) => {
    const until = Date.now() + ms;
    while (Date.now() < until) ctx.checkpoint();
    return 'slow done';
  },
});
