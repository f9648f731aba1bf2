/**
 * Peer: the official SDK with a hand-rolled Piscina offload, the "careful user" reference. CPU
 * tools go to a worker pool sized to the machine, and the request's abort signal is handed to
 * Piscina, so a client's cancel terminates the worker. What it lacks is a server-side deadline:
 * a runaway call with no cancel runs to its end.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { readPeerOptions, refuseTransport, SDK_STDIO_OPTIONS } from './peer-options.js';
import { peerPool } from './peer-pool.js';
import type { OffloadedTask } from './piscina-tasks.js';
import { serveSdkOverHttp } from './sdk-http.js';

const options = readPeerOptions();
const pool = peerPool(options.threads);

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
const offload = async (task: OffloadedTask, signal: AbortSignal) =>
  text((await pool.run(task, { signal })) as string);

function build(): McpServer {
  const server = new McpServer({ name: 'sdk-piscina-peer', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Returns its text', inputSchema: { text: z.string() } },
    async ({ text: value }) => text(value),
  );
  server.registerTool('noop', { description: 'Does nothing', inputSchema: {} }, async () => text('ok'));
  server.registerTool(
    'noop_blocking',
    { description: 'Does nothing, in the pool', inputSchema: {} },
    async (_args, extra) => offload({ tool: 'noop' }, extra.signal),
  );
  server.registerTool(
    'wait',
    { description: 'Waits ms milliseconds', inputSchema: { ms: z.number().int().min(0) } },
    async ({ ms }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return text(`waited ${ms} ms`);
    },
  );
  server.registerTool(
    'spin',
    { description: 'Burns CPU for ms milliseconds', inputSchema: { ms: z.number().int().min(0) } },
    async ({ ms }, extra) => offload({ tool: 'spin', ms }, extra.signal),
  );
  server.registerTool(
    'fib',
    { description: 'Naive Fibonacci', inputSchema: { n: z.number().int().min(0).max(40) } },
    async ({ n }, extra) => offload({ tool: 'fib', n }, extra.signal),
  );
  server.registerTool(
    'hash_chain',
    {
      description: 'Iterated SHA-256',
      inputSchema: { text: z.string().max(65536), rounds: z.number().int().min(1).default(100_000) },
    },
    async ({ text: value, rounds }, extra) =>
      offload({ tool: 'hash_chain', text: value, rounds }, extra.signal),
  );
  // The payload scenario's tools, offloaded: the names weft gives its pool-thread variants.
  server.registerTool(
    'payload_text_thread',
    { description: 'Answers a text of `bytes` bytes', inputSchema: { bytes: z.number().int().min(0) } },
    async ({ bytes }, extra) => offload({ tool: 'payload_text', bytes }, extra.signal),
  );
  server.registerTool(
    'payload_lines_thread',
    { description: 'Answers a document of `bytes` bytes', inputSchema: { bytes: z.number().int().min(0) } },
    async ({ bytes }, extra) => offload({ tool: 'payload_lines', bytes }, extra.signal),
  );
  server.registerTool(
    'payload_image_thread',
    { description: 'Answers an image of `bytes` bytes', inputSchema: { bytes: z.number().int().min(0) } },
    async ({ bytes }, extra) => ({
      content: [
        {
          type: 'image' as const,
          data: (await pool.run({ tool: 'payload_image', bytes }, { signal: extra.signal })) as string,
          mimeType: 'image/png',
        },
      ],
    }),
  );
  for (const kind of ['text', 'image'] as const) {
    server.registerTool(
      `payload_arg_${kind}_thread`,
      { description: `Answers the size of its ${kind}`, inputSchema: { data: z.string() } },
      async ({ data }, extra) => offload({ tool: 'payload_arg', data, kind }, extra.signal),
    );
  }
  return server;
}

if (options.httpPort !== undefined) serveSdkOverHttp(build, options.httpPort);
else if (options.wsPort !== undefined) refuseTransport('sdk-piscina', 'WebSocket server');
else await build().connect(new StdioServerTransport(process.stdin, process.stdout, SDK_STDIO_OPTIONS));
