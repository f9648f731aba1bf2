/**
 * The server the in-process binding suites run: every tool of binding-tools.ts, a prompt and a
 * resource (and template) that need scopes and report ctx.auth, behind the token hook.
 */
import { McpServer, type McpServerOptions } from '../../lib/index.js';
import {
  askTwice,
  longTask,
  readNote,
  sawAuth,
  whoamiInline,
  whoamiInner,
  whoamiProcess,
  whoamiTask,
  whoamiThread,
  whoamiViews,
  writeNote,
} from './binding-tools.js';

export function bindingServer(options: Partial<McpServerOptions> = {}): McpServer {
  const server = new McpServer({
    name: 'weft-bindings',
    version: '1.0.0',
    pool: { maxThreads: 2 },
    scopesSupported: ['notes:read', 'notes:write', 'admin'],
    tasks: { pollIntervalMs: 50 },
    ...options,
  });
  server
    .tool(whoamiInline)
    .tool(whoamiThread)
    .tool(whoamiProcess)
    .tool(whoamiInner)
    .tool(whoamiViews)
    .tool(whoamiTask)
    .tool(writeNote)
    .tool(readNote)
    .tool(longTask)
    .tool(askTwice);
  server
    .tool({
      name: 'admin_only',
      description: 'Needs admin, which no test token has.',
      inputSchema: { type: 'object', properties: {} },
      scopes: ['admin'],
      handler: () => 'admin',
    })
    .prompt({
      name: 'whoami_prompt',
      description: 'Reports ctx.auth; needs notes:read.',
      scopes: ['notes:read'],
      get: (_args, ctx) => sawAuth(ctx.auth),
    })
    .prompt({
      name: 'admin_prompt',
      scopes: ['admin'],
      arguments: [{ name: 'topic', complete: () => ['secret-topic'] }],
      get: () => 'admin',
    })
    .resource({
      uri: 'notes://whoami',
      name: 'whoami',
      scopes: ['notes:read'],
      read: (_uri, ctx) => sawAuth(ctx.auth),
    })
    .resource({ uri: 'notes://admin', name: 'admin', scopes: ['admin'], read: () => 'admin' })
    .resourceTemplate({
      uriTemplate: 'notes://by-id/{id}',
      name: 'note by id',
      scopes: ['notes:write'],
      complete: { id: () => ['7', '8'] },
      read: (_uri, variables, ctx) => `${variables.id}: ${sawAuth(ctx.auth)}`,
    });
  return server;
}
