/**
 * An upstream for the gateway's restart and subscription tests, run as its own process so a test
 * can SIGKILL it and start it again on the same port: `node restartable-upstream.js PORT SET`.
 * Tool set `before` has `echo`, `slow` (answers after 3 s, so a kill lands in the middle of it) and
 * `only_before`; set `after` has `echo` (saying so) and `only_after`: a gateway that re-read the
 * listing after the restart shows the second set's names. Both serve the template `item://{id}`
 * to subscribe to. Announces `restartable upstream: URL` on stderr.
 */
import { McpServer } from '../../lib/index.js';

const port = Number(process.argv[2] ?? 0);
const set = process.argv[3] === 'after' ? 'after' : 'before';
const server = new McpServer({ name: `restartable-${set}`, version: '1.0.0', timeoutMs: 30_000 });
const text = {
  type: 'object',
  properties: { text: { type: 'string' } },
  additionalProperties: false,
} as const;
const none = { type: 'object', properties: {}, additionalProperties: false } as const;

server.tool({
  name: 'echo',
  description: 'Echoes its text, saying which tool set answered',
  inputSchema: text,
  handler: (args) => `${set}: ${args.text ?? ''}`,
});
if (set === 'before') {
  server.tool({
    name: 'slow',
    description: 'Answers after 3 s',
    inputSchema: none,
    handler: (_args, ctx) =>
      new Promise<string>((resolve) => {
        const timer = setTimeout(() => resolve('slow done'), 3000);
        ctx.signal.addEventListener('abort', () => clearTimeout(timer));
      }),
  });
  server.tool({
    name: 'only_before',
    description: 'Only before the restart',
    inputSchema: none,
    handler: () => 'b',
  });
} else {
  server.tool({
    name: 'only_after',
    description: 'Only after the restart',
    inputSchema: none,
    handler: () => 'a',
  });
}
server.resourceTemplate({
  uriTemplate: 'item://{id}',
  name: 'item',
  description: 'One item per id',
  mimeType: 'text/plain',
  read: (_uri, { id }) => `item ${id}`,
});

await server.listen({ http: { port, host: '127.0.0.1' }, handleSignals: false });
process.stderr.write(`restartable upstream: http://127.0.0.1:${server.addresses.http?.port}/mcp\n`);
