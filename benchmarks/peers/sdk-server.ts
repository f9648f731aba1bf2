/**
 * Peer: the official TypeScript SDK's McpServer (1.x), written the way its users write tools:
 * zod input shapes and handlers that run inline on the event loop. Nothing here can stop a
 * runaway handler, and a CPU-bound one stalls every other call: that is what the benchmark shows.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { fibonacci, hashChain, spin } from './cpu-work.js';
import { argumentSize, payloadImage, payloadLines, payloadText } from './payload-work.js';
import { readPeerOptions, refuseTransport, SDK_STDIO_OPTIONS } from './peer-options.js';
import { serveSdkOverHttp } from './sdk-http.js';

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

function build(): McpServer {
  const server = new McpServer({ name: 'sdk-peer', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Returns its text', inputSchema: { text: z.string() } },
    async ({ text: value }) => text(value),
  );
  server.registerTool('noop', { description: 'Does nothing', inputSchema: {} }, async () => text('ok'));
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
    async ({ ms }) => text(spin(ms)),
  );
  server.registerTool(
    'fib',
    { description: 'Naive Fibonacci', inputSchema: { n: z.number().int().min(0).max(40) } },
    async ({ n }) => text(JSON.stringify({ n, value: fibonacci(n) })),
  );
  server.registerTool(
    'hash_chain',
    {
      description: 'Iterated SHA-256',
      inputSchema: { text: z.string().max(65536), rounds: z.number().int().min(1).default(100_000) },
    },
    async ({ text: value, rounds }) => text(hashChain(value, rounds)),
  );
  // The payload scenario's tools, inline as this SDK's users write them.
  server.registerTool(
    'payload_text',
    { description: 'Answers a text of `bytes` bytes', inputSchema: { bytes: z.number().int().min(0) } },
    async ({ bytes }) => text(payloadText(bytes)),
  );
  server.registerTool(
    'payload_lines',
    { description: 'Answers a document of `bytes` bytes', inputSchema: { bytes: z.number().int().min(0) } },
    async ({ bytes }) => text(payloadLines(bytes)),
  );
  server.registerTool(
    'payload_image',
    { description: 'Answers an image of `bytes` bytes', inputSchema: { bytes: z.number().int().min(0) } },
    async ({ bytes }) => ({
      content: [{ type: 'image' as const, data: payloadImage(bytes), mimeType: 'image/png' }],
    }),
  );
  for (const kind of ['text', 'image'] as const) {
    server.registerTool(
      `payload_arg_${kind}`,
      { description: `Answers the size of its ${kind}`, inputSchema: { data: z.string() } },
      async ({ data }) => text(argumentSize(data, kind)),
    );
  }
  return server;
}

const options = readPeerOptions();
if (options.httpPort !== undefined) serveSdkOverHttp(build, options.httpPort);
else if (options.wsPort !== undefined) refuseTransport('sdk', 'WebSocket server');
else await build().connect(new StdioServerTransport(process.stdin, process.stdout, SDK_STDIO_OPTIONS));
