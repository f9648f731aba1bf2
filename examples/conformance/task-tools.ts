/**
 * The conformance fixtures of the tasks scenarios (`tasks-*`, the 2026-07-28 tasks extension):
 * ordinary weft tools with a `task` option, so the suite exercises the real task layer.
 *
 * - `greet` has no task option: always answered synchronously.
 * - `slow_compute` (task optional) sleeps `seconds` in a pool thread; a cancel ends its thread.
 * - `failing_job` (task required) throws after about a second: a tool error, which the modern era
 *   reports as a completed task with an isError result.
 * - `protocol_error_job` (task optional) ends its own worker thread: a JSON-RPC error (-32603),
 *   so the task is failed with an inlined error.
 * - `confirm_delete` and `multi_input` ask the client during the task (one question, then two at
 *   once): the task waits input_required, holding no thread, until tasks/update answers.
 * - `test_tool_with_task` (task required) gathers the user's name in multi-round requests first
 *   (`beforeTask`), and only then becomes a task whose result names them.
 */
import { abortableSleep } from '../../lib/abortable-sleep.js';
import type { McpServer, ToolContext } from '../../lib/index.js';
import { defineTool, inputRequired } from '../../lib/tool.js';

const NO_ARGUMENTS = { type: 'object', properties: {}, additionalProperties: false } as const;

function elicitOf(ctx: ToolContext) {
  if (!ctx.elicit) throw new Error('This call has no client to ask');
  return ctx.elicit;
}

export const slowCompute = defineTool({
  name: 'slow_compute',
  description: 'Sleeps for `seconds` in a worker thread, then reports what it computed',
  blocking: true,
  module: import.meta.url,
  export: 'slowCompute',
  task: 'optional',
  inputSchema: {
    type: 'object',
    properties: { seconds: { type: 'number', minimum: 0 }, label: { type: 'string' } },
    required: ['seconds'],
  },
  handler: async ({ seconds, label }, ctx) => {
    await abortableSleep(seconds * 1000, ctx.signal);
    return `Computed ${label ?? 'result'} after ${seconds}s`;
  },
});

export const failingJob = defineTool({
  name: 'failing_job',
  description: 'Runs for about a second, then fails with a tool error',
  blocking: true,
  module: import.meta.url,
  export: 'failingJob',
  task: 'required',
  inputSchema: NO_ARGUMENTS,
  handler: async (_args, ctx) => {
    await abortableSleep(1_000, ctx.signal);
    throw new Error('The job failed: the input could not be processed');
  },
});

export const protocolErrorJob = defineTool({
  name: 'protocol_error_job',
  description: 'Ends its own worker thread, which the server reports as an internal error',
  blocking: true,
  module: import.meta.url,
  export: 'protocolErrorJob',
  task: 'optional',
  inputSchema: NO_ARGUMENTS,
  handler: async () => {
    process.exit(3);
  },
});

export function addTaskFixtures(server: McpServer): void {
  server.tool({
    name: 'greet',
    description: 'Greets someone, synchronously',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    handler: ({ name }) => `Hello, ${name}!`,
  });
  server.tool(slowCompute).tool(failingJob).tool(protocolErrorJob);
  server.tool({
    name: 'confirm_delete',
    description: 'Asks the user to confirm, then deletes the (imaginary) file',
    task: 'optional',
    inputSchema: { type: 'object', properties: { filename: { type: 'string' } }, required: ['filename'] },
    handler: async ({ filename }, ctx) => {
      const answer = await elicitOf(ctx)({
        message: `Delete ${filename}?`,
        requestedSchema: {
          type: 'object',
          properties: { confirm: { type: 'boolean' } },
          required: ['confirm'],
        },
      });
      const confirmed = answer.action === 'accept' && answer.content?.confirm === true;
      return confirmed ? `Deleted ${filename}` : `Kept ${filename}`;
    },
  });
  server.tool({
    name: 'multi_input',
    description: 'Asks two questions at once, then reports both answers',
    task: 'optional',
    inputSchema: NO_ARGUMENTS,
    handler: async (_args, ctx) => {
      const elicit = elicitOf(ctx);
      const form = (message: string) => ({
        message,
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
      });
      const [first, second] = await Promise.all([elicit(form('First name?')), elicit(form('Second name?'))]);
      return `Got ${String(first.content?.name)} and ${String(second.content?.name)}`;
    },
  });
  server.tool({
    name: 'test_tool_with_task',
    description: "Asks the user's name in the request, then greets them from a task",
    task: 'required',
    inputSchema: NO_ARGUMENTS,
    beforeTask: (_args, { inputResponses }) =>
      inputResponses.user_name === undefined
        ? inputRequired({
            user_name: {
              method: 'elicitation/create',
              params: {
                message: 'What is your name?',
                requestedSchema: {
                  type: 'object',
                  properties: { name: { type: 'string' } },
                  required: ['name'],
                },
              },
            },
          })
        : undefined,
    handler: (_args, ctx) => {
      const answer = ctx.inputResponses?.user_name as { content?: { name?: unknown } } | undefined;
      return `Hello, ${String(answer?.content?.name ?? 'stranger')}, from a task!`;
    },
  });
}
