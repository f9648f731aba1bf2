/**
 * The server the modern-era tests talk to, in process or as a child over stdio: the demo tools
 * plus tools that log, ask the client, report progress and change the server's lists, one
 * resource, one template and one prompt. Also the envelope a 2026-07-28 request carries.
 */
import { pathToFileURL } from 'node:url';
import { addDemoTools } from '../../examples/demo-tools.js';
import { McpServer, type McpServerOptions } from '../../lib/index.js';
import { askBlocking, progress } from '../support/fixture-tools.js';

export const MODERN = '2026-07-28';

/** A request's `_meta` for the modern era; `extra` adds or overrides keys. */
export function envelope(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'modern-tests', version: '0' },
    ...extra,
  };
}

export function buildModernServer(options: Partial<McpServerOptions> = {}): McpServer {
  const server = addDemoTools(
    new McpServer({
      name: 'weft-modern',
      version: '1.2.3',
      instructions: 'Use echo to test.',
      pageSize: 4,
      pool: { maxThreads: 2 },
      ...options,
    }),
  )
    .tool(progress)
    .tool(askBlocking)
    .tool({
      name: 'logs',
      description: 'Logs once at debug and once at warning, then returns.',
      inputSchema: { type: 'object' },
      handler: (_args, ctx) => {
        ctx.log('debug', 'a debug line');
        ctx.log('warning', 'a warning line');
        return 'logged';
      },
    })
    .tool({
      name: 'ask',
      description: 'Asks the user for a name (inline ctx.elicit) and reports what happened.',
      inputSchema: { type: 'object' },
      handler: async (_args, ctx) => {
        try {
          const answer = await ctx.elicit!({ message: 'Your name?', requestedSchema: { type: 'object' } });
          return `answered: ${answer.action}`;
        } catch (error) {
          return `refused: ${(error as Error).message}`;
        }
      },
    })
    .tool({
      name: 'ask_through',
      description: 'Calls the ask tool through ctx.tools().call and returns its text.',
      inputSchema: { type: 'object' },
      handler: async (_args, ctx) => {
        const inner = await ctx.tools!().call('ask', {});
        return `${(inner.content[0] as { text: string }).text} [resultType: ${String((inner as { resultType?: unknown }).resultType)}]`;
      },
    })
    .tool({
      name: 'with_meta',
      description: 'Returns a CallToolResult that carries _meta of its own.',
      inputSchema: { type: 'object' },
      handler: () => ({ content: [{ type: 'text', text: 'meta' }], _meta: { 'com.example/trace': 'abc' } }),
    })
    .tool({
      name: 'touch_tools',
      description: 'Adds and removes a tool, so the tool list changes.',
      inputSchema: { type: 'object' },
      handler: async (_args, ctx) => {
        await ctx.tools().add({ name: 'ephemeral', inputSchema: { type: 'object' }, handler: () => 'here' });
        await ctx.tools().remove('ephemeral');
        return 'touched';
      },
    })
    .tool({
      name: 'touch_prompts',
      description: 'Adds and removes a prompt, so the prompt list changes.',
      inputSchema: { type: 'object' },
      handler: async (_args, ctx) => {
        await ctx.prompts().add({ name: 'ephemeral', get: () => 'here' });
        await ctx.prompts().remove('ephemeral');
        return 'touched';
      },
    })
    .tool({
      name: 'touch_resource',
      description: 'Announces that a resource changed.',
      inputSchema: { type: 'object', properties: { uri: { type: 'string' } }, required: ['uri'] },
      handler: async ({ uri }, ctx) => {
        await ctx.resources().notifyUpdated(uri);
        return 'touched';
      },
    });
  server
    .resource({ uri: 'app://config', name: 'config', mimeType: 'application/json', read: () => '{"a":1}' })
    .resource({ uri: 'app://other', name: 'other', read: () => 'other' })
    .resourceTemplate({
      uriTemplate: 'app://users/{id}',
      name: 'user',
      read: (_uri, { id }) => `user ${id}`,
      complete: { id: (typed) => ['ada', 'alan', 'grace'].filter((id) => id.startsWith(typed)) },
    })
    .prompt({
      name: 'greet',
      arguments: [{ name: 'who', required: true }],
      get: ({ who }) => `Hello, ${who}`,
    });
  return server;
}

// Run as a script: serve the fixtures on stdio (the transport tests spawn it).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await buildModernServer().listen({ stdio: true });
}
