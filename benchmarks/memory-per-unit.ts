#!/usr/bin/env node
/**
 * Live heap per unit of what a caller makes the server keep: an idle legacy session, a task record,
 * a caller the fair scheduler tracks, a listen stream, a queued call. Each is made `--count` times
 * (default 2000) on a fresh server, through the server's real paths (the Streamable HTTP handler
 * in-process for sessions, `server.connect` for the rest), and live heap is read after a full GC
 * before and after. Run: `node --expose-gc dist/benchmarks/memory-per-unit.js [--count N]`.
 *
 * - idle legacy session: initialize, initialized, one tools/list; kept open.
 * - task record: a finished task (tools/call with `task`), kept for its TTL.
 * - queued call: one caller's blocking calls waiting for the pool's only (busy) thread.
 * - caller the scheduler tracks: N callers with one queued call each, less N queued calls of one
 *   caller (the difference is the per-caller state, not the call's).
 * - listen stream: a 2026-07-28 `subscriptions/listen` open on a connection (router state only; over
 *   HTTP its SSE response and socket come on top).
 */
import { parseArgs } from 'node:util';
import { McpServer } from '../lib/index.js';
import { exchange } from '../test/support/in-process-http.js';
import { taskSleep } from './servers/soak-tools.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  process.stderr.write('Run with node --expose-gc\n');
  process.exit(2);
}
const { values } = parseArgs({ options: { count: { type: 'string', default: '2000' } } });
const N = Number(values.count);
const tick = (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms));

async function liveHeap(): Promise<number> {
  for (let round = 0; round < 4; round++) {
    await tick();
    gc!();
  }
  return process.memoryUsage().heapUsed;
}

function newServer(): McpServer {
  return new McpServer({
    name: 'memory-per-unit',
    version: '0.1.0',
    timeoutMs: 600_000,
    pool: { maxThreads: 1, maxQueue: 4 * N + 100 },
    fairness: { key: (request) => (request.meta?.caller as string | undefined) ?? undefined },
  })
    .tool({
      name: 'quick',
      description: 'Answers at once; a task when asked for one',
      inputSchema: { type: 'object', properties: {} },
      task: 'optional',
      handler: () => 'done',
    })
    .tool(taskSleep);
}

let errors = 0;
let counting = false;
const sink = {
  send: (message: unknown) => {
    const m = message as { error?: unknown; result?: { isError?: boolean } };
    if (counting && (m.error || m.result?.isError)) {
      if (errors++ === 0) process.stderr.write(`first error: ${JSON.stringify(message).slice(0, 300)}\n`);
    }
  },
};
const initialize = (id: number | string) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'memory', version: '1' } },
});

/** Heap per unit: `make` is given a fresh server and makes N units; the server is closed after. */
async function measure(name: string, make: (server: McpServer) => Promise<void>): Promise<number> {
  const server = newServer();
  const warm = server.connect(sink);
  warm.receive(initialize(0));
  await tick(50);
  const before = await liveHeap();
  counting = true;
  await make(server);
  const after = await liveHeap();
  counting = false;
  const perUnit = (after - before) / N;
  process.stdout.write(
    `${name.padEnd(34)} ${perUnit.toFixed(0).padStart(7)} B${errors > 0 ? ` (${errors} errors!)` : ''}\n`,
  );
  errors = 0;
  await server.close().catch(() => {});
  return perUnit;
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A legacy connection, initialized. */
async function legacyConnection(server: McpServer) {
  const connection = server.connect(sink);
  connection.receive(initialize(0));
  connection.receive({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await tick(5);
  return connection;
}

/** N blocking calls queued behind one that holds the only thread; `caller` names each one's key. */
async function queue(server: McpServer, caller: (n: number) => string): Promise<void> {
  const connection = await legacyConnection(server);
  connection.receive({
    jsonrpc: '2.0',
    id: 'hold',
    method: 'tools/call',
    params: { name: 'task_sleep', arguments: { ms: 60_000 }, _meta: { caller: 'holder' } },
  });
  await tick(200);
  for (let n = 0; n < N; n++) {
    connection.receive({
      jsonrpc: '2.0',
      id: n + 1,
      method: 'tools/call',
      params: { name: 'task_sleep', arguments: { ms: 1 }, _meta: { caller: caller(n) } },
    });
  }
  await tick(100);
}

process.stdout.write(`node ${process.version}, ${N} of each, live heap after a full GC:\n`);
await measure('idle legacy session', async (server) => {
  const handle = server.handler({ unusedSessionMs: 3_600_000 });
  for (let n = 0; n < N; n++) {
    const init = await exchange(handle, 'POST', HEADERS, initialize(0));
    const session = {
      ...HEADERS,
      'mcp-session-id': init.headers['mcp-session-id']!,
      'mcp-protocol-version': '2025-11-25',
    };
    await exchange(handle, 'POST', session, { jsonrpc: '2.0', method: 'notifications/initialized' });
    await exchange(handle, 'POST', session, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
  }
});
await measure('task record (finished, in its TTL)', async (server) => {
  const connection = await legacyConnection(server);
  for (let n = 0; n < N; n++) {
    connection.receive({
      jsonrpc: '2.0',
      id: n + 1,
      method: 'tools/call',
      params: { name: 'quick', arguments: {}, task: {} },
    });
  }
  await tick(300);
});
const queued = await measure('queued call (one caller)', (server) => queue(server, () => 'one'));
const perCaller = await measure('queued call (a caller each)', (server) =>
  queue(server, (n) => `caller-${n}`),
);
process.stdout.write(
  `${'caller the scheduler tracks'.padEnd(34)} ${(perCaller - queued).toFixed(0).padStart(7)} B\n`,
);
await measure('listen stream (router side)', async (server) => {
  const connection = server.connect(sink);
  for (let n = 0; n < N; n++) {
    connection.receive({
      jsonrpc: '2.0',
      id: `listen-${n}`,
      method: 'subscriptions/listen',
      params: {
        notifications: { toolsListChanged: true },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'memory', version: '1' },
        },
      },
    });
  }
  await tick(100);
});
process.exit(0);
