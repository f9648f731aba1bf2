/**
 * An official SDK 1.x server on stdio for the client and gateway tests: `echo`, `ask_name` (asks
 * the client with elicitation/create, a legacy server-to-client request), `die` (exits the process), `slow` (reports progress,
 * then waits until cancelled; says on stderr when its signal aborted) and a prompt and resource.
 */
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'sdk1-upstream', version: '1.0.0' });
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

server.registerTool(
  'echo',
  { description: 'Returns its text', inputSchema: { text: z.string() } },
  async ({ text: t }) => text(t),
);
server.registerTool('ask_name', { description: 'Asks the user for a name', inputSchema: {} }, async () => {
  const answer = await server.server.elicitInput({
    message: 'Your name?',
    requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  });
  return text(`hello ${String(answer.content?.name)} (${answer.action})`);
});
server.registerTool(
  'slow',
  {
    description: 'Reports progress, then waits until cancelled or ms pass',
    inputSchema: { ms: z.number().int() },
  },
  async ({ ms }, extra) => {
    const token = extra._meta?.progressToken;
    if (token !== undefined) {
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: 1, total: 2 },
      });
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      extra.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        process.stderr.write('sdk1-upstream: slow was cancelled\n');
        resolve();
      });
    });
    return text(`slept ${ms}`);
  },
);
server.registerTool('die', { description: 'Ends this server process', inputSchema: {} }, async () => {
  setTimeout(() => process.exit(1), 10);
  return text('dying');
});
server.registerPrompt('greeting', { description: 'Greets', argsSchema: { who: z.string() } }, ({ who }) => ({
  messages: [{ role: 'user', content: { type: 'text', text: `Hello ${who}` } }],
}));
server.registerResource(
  'note',
  new ResourceTemplate('note://{id}', { list: undefined }),
  { description: 'A note by id' },
  async (uri, { id }) => ({ contents: [{ uri: uri.href, text: `note ${String(id)}` }] }),
);
server.registerResource('static', 'static://hello', { description: 'A fixed text' }, async (uri) => ({
  contents: [{ uri: uri.href, text: 'hello' }],
}));

await server.connect(new StdioServerTransport());
