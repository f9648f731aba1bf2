/**
 * An official SDK 1.x server on stdio with prompts, resources and a template for the gateway's
 * primitives test: a prompt whose argument completes, a subscribable resource, a template whose
 * variable completes, and tools that change them at run time (`add_prompt`, `touch` sends
 * resources/updated) or end the process (`die`).
 */
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const server = new McpServer({ name: 'sdk1-primitives', version: '1.0.0' });
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
const subscribed = new Set<string>();

server.registerPrompt(
  'greet',
  {
    description: 'Greets someone',
    argsSchema: {
      who: completable(z.string(), (value) => ['ada', 'alan', 'grace'].filter((n) => n.startsWith(value))),
    },
  },
  ({ who }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hello ${who}` } }] }),
);
server.registerResource('memo', 'memo://today', { mimeType: 'text/plain' }, async (uri) => ({
  contents: [{ uri: uri.href, text: 'memo of today' }],
}));
server.registerResource(
  'note',
  new ResourceTemplate('note://{id}', {
    list: undefined,
    complete: { id: (value) => ['n1', 'n2', 'x9'].filter((id) => id.startsWith(value)) },
  }),
  { description: 'A note by id', mimeType: 'text/plain' },
  async (uri, { id }) => ({ contents: [{ uri: uri.href, text: `note ${String(id)}` }] }),
);
server.registerTool('add_prompt', { description: 'Adds the prompt "later"', inputSchema: {} }, async () => {
  server.registerPrompt('later', { description: 'Added at run time' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'late prompt' } }],
  }));
  return text('added');
});
server.registerTool('touch', { description: 'Says memo://today changed', inputSchema: {} }, async () => {
  await server.server.sendResourceUpdated({ uri: 'memo://today' });
  return text(subscribed.has('memo://today') ? 'touched, subscribed' : 'touched, nobody subscribed');
});
server.registerTool('die', { description: 'Ends this server process', inputSchema: {} }, async () => {
  setTimeout(() => process.exit(1), 10);
  return text('dying');
});
server.server.registerCapabilities({ resources: { subscribe: true, listChanged: true } });
server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
  subscribed.add(request.params.uri);
  return {};
});
server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
  subscribed.delete(request.params.uri);
  return {};
});

await server.connect(new StdioServerTransport());
