/**
 * The conformance tools that ask the client something (sampling, three elicitations) and the one
 * that exercises the polling pattern (`test_reconnection`, whose stream the HTTP transport closes
 * mid-call; see `pollAfterMs` in the conformance server).
 *
 * The four that ask the client are blocking tools: their handlers run in a pool thread and await
 * the client's answer there, which proves server-to-client requests travel out of workers. Each is
 * a named export of this module (`module: import.meta.url`); the worker finds it by name.
 */
import type { McpServer, ToolContext } from '../../lib/index.js';
import { defineTool } from '../../lib/tool.js';

const NO_ARGUMENTS = { type: 'object', properties: {}, additionalProperties: false } as const;

function elicit(ctx: ToolContext) {
  if (!ctx.elicit) throw new Error('This server cannot relay elicitation requests for this tool');
  return ctx.elicit;
}

export const samplingTool = defineTool({
  name: 'test_sampling',
  blocking: true,
  module: import.meta.url,
  description: "Asks the client's model to answer a prompt (sampling/createMessage)",
  inputSchema: {
    type: 'object',
    properties: { prompt: { type: 'string', description: 'The prompt to send to the model' } },
    required: ['prompt'],
    additionalProperties: false,
  },
  handler: async ({ prompt }, ctx) => {
    if (!ctx.sample) throw new Error('This server cannot relay sampling requests for this tool');
    const answer = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
      maxTokens: 100,
    });
    const content = answer.content as { type?: string; text?: string };
    return `LLM response: ${content.type === 'text' ? content.text : JSON.stringify(content)}`;
  },
});

export const elicitationTool = defineTool({
  name: 'test_elicitation',
  blocking: true,
  module: import.meta.url,
  description: 'Asks the user for a username and an email (elicitation/create)',
  inputSchema: {
    type: 'object',
    properties: { message: { type: 'string', description: 'The message to show the user' } },
    required: ['message'],
    additionalProperties: false,
  },
  handler: async ({ message }, ctx) => {
    const answer = await elicit(ctx)({
      message,
      requestedSchema: {
        type: 'object',
        properties: {
          username: { type: 'string', description: "User's response" },
          email: { type: 'string', description: "User's email address" },
        },
        required: ['username', 'email'],
      },
    });
    return `User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
  },
});

export const elicitationDefaultsTool = defineTool({
  name: 'test_elicitation_sep1034_defaults',
  blocking: true,
  module: import.meta.url,
  description: 'Elicits a form whose fields all carry default values (SEP-1034)',
  inputSchema: NO_ARGUMENTS,
  handler: async (_args, ctx) => {
    const answer = await elicit(ctx)({
      message: 'Please confirm or change these details',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'User name', default: 'John Doe' },
          age: { type: 'integer', description: 'User age', default: 30 },
          score: { type: 'number', description: 'User score', default: 95.5 },
          status: {
            type: 'string',
            description: 'User status',
            enum: ['active', 'inactive', 'pending'],
            default: 'active',
          },
          verified: { type: 'boolean', description: 'Verification status', default: true },
        },
      },
    });
    return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
  },
});

export const elicitationEnumsTool = defineTool({
  name: 'test_elicitation_sep1330_enums',
  blocking: true,
  module: import.meta.url,
  description: 'Elicits a form using every enum shape of SEP-1330',
  inputSchema: NO_ARGUMENTS,
  handler: async (_args, ctx) => {
    const answer = await elicit(ctx)({
      message: 'Please pick some options',
      requestedSchema: {
        type: 'object',
        properties: {
          untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          titledSingle: {
            type: 'string',
            oneOf: [
              { const: 'value1', title: 'First Option' },
              { const: 'value2', title: 'Second Option' },
              { const: 'value3', title: 'Third Option' },
            ],
          },
          legacyEnum: {
            type: 'string',
            enum: ['opt1', 'opt2', 'opt3'],
            enumNames: ['Option One', 'Option Two', 'Option Three'],
          },
          untitledMulti: {
            type: 'array',
            items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          },
          titledMulti: {
            type: 'array',
            items: {
              anyOf: [
                { const: 'value1', title: 'First Choice' },
                { const: 'value2', title: 'Second Choice' },
                { const: 'value3', title: 'Third Choice' },
              ],
            },
          },
        },
      },
    });
    return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
  },
});

export function addClientRequestTools(server: McpServer): McpServer {
  return server
    .tool(samplingTool)
    .tool(elicitationTool)
    .tool(elicitationDefaultsTool)
    .tool(elicitationEnumsTool)
    .tool({
      name: 'test_reconnection',
      description:
        'Takes a moment to answer; over HTTP its stream is closed mid-call and the answer is fetched with Last-Event-ID',
      inputSchema: NO_ARGUMENTS,
      handler: (_args, ctx) =>
        new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => resolve('Reconnection test completed successfully'), 400);
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(ctx.signal.reason);
          });
        }),
    });
}
