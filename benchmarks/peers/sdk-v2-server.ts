/**
 * Peer: the official TypeScript SDK v2 (`@modelcontextprotocol/server` 2.x), served the way its docs
 * serve a stateless 2026-07-28 endpoint: `createMcpHandler(factory)`, which builds a fresh McpServer
 * for every HTTP request. The tools are the other peers' (same names, same CPU loops from
 * cpu-work.ts), with zod 4 schemas and handlers that run inline on the event loop, as its users
 * write them. HTTP only: the modern-HTTP scenario is what it is here for.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { fibonacci, hashChain, spin } from './cpu-work.js';
import { readPeerOptions, refuseTransport } from './peer-options.js';
import { serveFetchHandler } from './sdk-v2-http.js';

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
const ms = z.object({ ms: z.number().int().min(0) });

function build(): McpServer {
  const server = new McpServer({ name: 'sdk-v2-peer', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Returns its text', inputSchema: z.object({ text: z.string() }) },
    async ({ text: value }) => text(value),
  );
  server.registerTool('noop', { description: 'Does nothing', inputSchema: z.object({}) }, async () =>
    text('ok'),
  );
  server.registerTool('wait', { description: 'Waits ms milliseconds', inputSchema: ms }, async ({ ms }) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return text(`waited ${ms} ms`);
  });
  server.registerTool(
    'spin',
    { description: 'Burns CPU for ms milliseconds', inputSchema: ms },
    async ({ ms }) => text(spin(ms)),
  );
  server.registerTool(
    'fib',
    { description: 'Naive Fibonacci', inputSchema: z.object({ n: z.number().int().min(0).max(40) }) },
    async ({ n }) => text(JSON.stringify({ n, value: fibonacci(n) })),
  );
  server.registerTool(
    'hash_chain',
    {
      description: 'Iterated SHA-256',
      inputSchema: z.object({
        text: z.string().max(65536),
        rounds: z.number().int().min(1).default(100_000),
      }),
    },
    async ({ text: value, rounds }) => text(hashChain(value, rounds)),
  );
  return server;
}

const options = readPeerOptions();
if (options.httpPort !== undefined) serveFetchHandler(build, options.httpPort);
else refuseTransport('sdk-v2', options.wsPort !== undefined ? 'WebSocket server' : 'stdio server');
