/**
 * The child process of ended-sessions-heap.test.ts (run with `node --expose-gc`, outside the test
 * runner, whose promise hooks would triple the cost): ends N legacy sessions through the Streamable
 * HTTP handler's real code, in-process, and prints live heap before and after as one JSON line.
 * Each session is initialized, stores replay events (a call answered on an SSE stream, with
 * progress) and is deleted.
 */
import assert from 'node:assert/strict';
import { McpServer } from '../../lib/index.js';
import { exchange } from '../support/in-process-http.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

function progressServer(): McpServer {
  return new McpServer({ name: 'churn', version: '1.0.0' }).tool({
    name: 'step',
    description: 'Reports progress, then answers a turn later (so its answer goes on a stream)',
    inputSchema: { type: 'object', properties: {} },
    handler: async (_args, ctx) => {
      ctx.progress(1, 2, 'half');
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      return 'done';
    },
  });
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const initialize = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'churn', version: '1' } },
};
const step = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'step', arguments: {}, _meta: { progressToken: 1 } },
};

type Handle = ReturnType<McpServer['handler']>;

/** One whole session: initialize, initialized, a streamed call (replay events stored), DELETE. */
async function oneSession(handle: Handle): Promise<void> {
  const init = await exchange(handle, 'POST', HEADERS, initialize);
  const id = init.headers['mcp-session-id'];
  assert.ok(id, `initialize answered ${init.status} ${init.body}`);
  const session = { ...HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };
  await exchange(handle, 'POST', session, { jsonrpc: '2.0', method: 'notifications/initialized' });
  const call = await exchange(handle, 'POST', session, step);
  assert.equal(call.headers['content-type'], 'text/event-stream', 'the call is answered on a stream');
  assert.match(call.body, /notifications\/progress/);
  const ended = await exchange(handle, 'DELETE', { 'mcp-session-id': id });
  assert.equal(ended.status, 200);
}

async function churn(handle: Handle, sessions: number): Promise<void> {
  const concurrent = 256;
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrent }, async () => {
      while (next < sessions) {
        next++;
        await oneSession(handle);
      }
    }),
  );
}

async function liveHeap(): Promise<number> {
  // Closes fire on later ticks, and weak callbacks need a few rounds.
  for (let round = 0; round < 4; round++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    gc!();
  }
  return process.memoryUsage().heapUsed;
}

const sessions = Number(process.argv[2] ?? 100_000);
const server = progressServer();
const handle = server.handler();
await churn(handle, 2_000); // warm-up: code compiled, caches filled
const baseline = await liveHeap();
const started = performance.now();
await churn(handle, sessions);
const seconds = (performance.now() - started) / 1000;
const after = await liveHeap();
await server.close();
process.stdout.write(`${JSON.stringify({ sessions, seconds, baseline, after })}\n`);
