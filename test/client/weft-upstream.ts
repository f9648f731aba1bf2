/**
 * A weft server in the test's own process for the client tests: the conformance fixtures (content,
 * headers, multi-round questions, tasks, prompts and resources) plus `wait_for_cancel`, an inline
 * tool that records when its call's signal aborted, so a test can prove a cancel reached the server.
 * Served over HTTP and WebSocket on free ports.
 */
import { addContentTools } from '../../examples/conformance/content-tools.js';
import { addHeaderTools } from '../../examples/conformance/header-tools.js';
import { addInputRequiredFixtures } from '../../examples/conformance/input-required-tools.js';
import { addResourcesAndPrompts } from '../../examples/conformance/resources-and-prompts.js';
import { addTaskFixtures } from '../../examples/conformance/task-tools.js';
import { McpServer, type McpServerOptions } from '../../lib/index.js';

export interface WeftUpstream {
  server: McpServer;
  httpUrl: string;
  wsUrl: string;
  /** Resolves with the abort reason of the next `wait_for_cancel` call whose signal aborts. */
  cancelled: () => Promise<string>;
  close(): Promise<void>;
}

export async function startWeftUpstream(options: Partial<McpServerOptions> = {}): Promise<WeftUpstream> {
  const server = new McpServer({ name: 'weft-upstream', version: '1.2.3', timeoutMs: 30_000, ...options });
  addContentTools(server);
  addHeaderTools(server);
  addInputRequiredFixtures(server);
  addResourcesAndPrompts(server);
  addTaskFixtures(server);
  let onCancel: ((reason: string) => void) | undefined;
  server.tool({
    name: 'wait_for_cancel',
    description: 'Waits until its call is cancelled (or 20 s), saying when the signal aborted',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    handler: (_args, ctx) =>
      new Promise<string>((resolve) => {
        const timer = setTimeout(() => resolve('not cancelled'), 20_000);
        ctx.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          onCancel?.(String(ctx.signal.reason));
          resolve('cancelled');
        });
      }),
  });
  server.tool({
    name: 'report_progress',
    description: 'Reports three progress steps and a log line, then answers',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    handler: async (_args, ctx) => {
      for (let step = 1; step <= 3; step++) {
        ctx.progress(step, 3, `step ${step}`);
        ctx.log('info', { step });
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return 'done';
    },
  });
  await server.listen({ http: { port: 0, host: '127.0.0.1' }, ws: { port: 0, host: '127.0.0.1' } });
  const { http, ws } = server.addresses;
  return {
    server,
    httpUrl: `http://127.0.0.1:${http?.port}/mcp`,
    wsUrl: `ws://127.0.0.1:${ws?.port}/`,
    cancelled: () => new Promise<string>((resolve) => (onCancel = resolve)),
    close: () => server.close(),
  };
}
