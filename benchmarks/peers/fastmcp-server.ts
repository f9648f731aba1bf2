/**
 * Peer: FastMCP (the `fastmcp` npm package), written the way its users write tools: zod parameters
 * and inline `execute` functions. `spin` carries FastMCP's own `timeoutMs` (2000, like weft's spin)
 * to show what a timeout that only stops waiting does against a loop that never yields.
 */
import { FastMCP } from 'fastmcp';
import { z } from 'zod';
import { fibonacci, hashChain, spin } from './cpu-work.js';
import { readPeerOptions, refuseTransport } from './peer-options.js';

const server = new FastMCP({ name: 'fastmcp-peer', version: '1.0.0' });

server.addTool({
  name: 'echo',
  description: 'Returns its text',
  parameters: z.object({ text: z.string() }),
  execute: async ({ text }) => text,
});
server.addTool({
  name: 'noop',
  description: 'Does nothing',
  parameters: z.object({}),
  execute: async () => 'ok',
});
server.addTool({
  name: 'wait',
  description: 'Waits ms milliseconds',
  parameters: z.object({ ms: z.number().int().min(0) }),
  execute: async ({ ms }) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return `waited ${ms} ms`;
  },
});
server.addTool({
  name: 'spin',
  description: 'Burns CPU for ms milliseconds',
  parameters: z.object({ ms: z.number().int().min(0) }),
  timeoutMs: 2_000,
  execute: async ({ ms }) => spin(ms),
});
server.addTool({
  name: 'fib',
  description: 'Naive Fibonacci',
  parameters: z.object({ n: z.number().int().min(0).max(40) }),
  execute: async ({ n }) => JSON.stringify({ n, value: fibonacci(n) }),
});
server.addTool({
  name: 'hash_chain',
  description: 'Iterated SHA-256',
  parameters: z.object({ text: z.string().max(65536), rounds: z.number().int().min(1).default(100_000) }),
  execute: async ({ text, rounds }) => hashChain(text, rounds),
});

const options = readPeerOptions();
if (options.httpPort !== undefined) {
  await server.start({
    transportType: 'httpStream',
    httpStream: { port: options.httpPort, host: '127.0.0.1', endpoint: '/mcp' },
  });
} else if (options.wsPort !== undefined) {
  refuseTransport('fastmcp', 'WebSocket server');
} else {
  await server.start({ transportType: 'stdio' });
}
