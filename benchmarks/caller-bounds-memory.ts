/**
 * What each bound on caller-grown tables costs at its cap (docs/security.md, "Bounds on what
 * callers make the server keep"): the heap a table holds when one flood has filled it to its
 * default cap, measured after a full collection, beside what the same flood cost before the bound
 * where it had none. Each part builds the real structure (the scheduler's queue, the counters, a
 * server with its legacy sessions, task store and listen streams) in this process.
 *
 * `node --expose-gc dist/benchmarks/caller-bounds-memory.js`: about a minute.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { WebSocket } from 'ws';
import { DEFAULT_MAX_LISTENS_PER_CALLER } from '../lib/bounds-options.js';
import { DEFAULT_MAX_COUNTERS, LocalCallerCounts } from '../lib/engine/caller-counts.js';
import { DEFAULT_MAX_KEYS, FairQueue } from '../lib/engine/fair-queue.js';
import { McpServer, makePrincipal, type Principal } from '../lib/index.js';
import { MemoryTaskStore } from '../lib/tasks/memory-task-store.js';
import { DEFAULT_TASK_LIMITS } from '../lib/tasks/task-limits.js';
import { DEFAULT_MAX_CONNECTIONS_PER_CALLER } from '../lib/transports/websocket.js';
import { initializeSession, pingSession } from '../test/support/legacy-session.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const MB = 1024 * 1024;

async function heap(): Promise<number> {
  gc!();
  await new Promise((resolve) => setImmediate(resolve));
  gc!();
  return process.memoryUsage().heapUsed;
}

/** Heap held by what `fill` builds and returns (kept alive until measured). */
async function held(fill: () => Promise<unknown> | unknown): Promise<number> {
  const before = await heap();
  const kept = await fill();
  const after = await heap();
  void kept;
  return after - before;
}

const rows: string[] = [];
const row = (bound: string, cap: string, bytes: number, note = '') =>
  rows.push(`| ${bound} | ${cap} | ${(bytes / MB).toFixed(1)} MB | ${note} |`);

// Scheduler keys: every key idle and in debt, the case that used to be kept for good.
row(
  'scheduler keys (`bounds.maxCallerKeys`)',
  DEFAULT_MAX_KEYS.toLocaleString('en'),
  await held(() => {
    const queue = new FairQueue<string>();
    for (let i = 0; i < 20_000; i++) {
      const owner = queue.keyOf({ key: `anonymous-request-${i}`, weight: 1 });
      const charged = queue.charge(owner);
      queue.settle(owner, charged, charged + 5);
    }
    return queue;
  }),
  '20,000 callers offered',
);

row(
  'per-caller rate counters',
  DEFAULT_MAX_COUNTERS.toLocaleString('en'),
  await held(() => {
    const counts = new LocalCallerCounts();
    for (let i = 0; i < 200_000; i++) {
      const entry = counts.enter([
        { kind: 'callsPerMinute', scope: 'server', counter: `callsPerMinute:s:caller-${i}`, max: 60 },
      ]);
      if (entry.passed) entry.leave();
    }
    return counts;
  }),
  '200,000 callers offered',
);

// Task records: one caller filling its byte cap with 100 kB results, then the count cap with tiny ones.
const perCallerTasks = await held(async () => {
  const store = new MemoryTaskStore();
  const result = { content: [{ type: 'text', text: 'x'.repeat(100_000) }] };
  for (let i = 0; i < 1_000; i++) {
    const taskId = `task-${i}`;
    const now = Date.now();
    await store.create({
      taskId,
      era: 'modern',
      principal: 'issuer one',
      tool: 'echo',
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: 3_600_000,
      pollIntervalMs: 1_000,
    });
    await store.update(taskId, { status: 'completed', result });
  }
  return store;
});
row(
  'task bytes per caller',
  `${DEFAULT_TASK_LIMITS.maxBytesPerCaller / MB} MiB`,
  perCallerTasks,
  '1,000 tasks with a 100 kB result offered (before: +104 MB)',
);
/** A store offered `count` small finished tasks, the i-th counted against `owner(i)`. */
async function smallTasks(
  count: number,
  owner: (i: number) => { principal: string } | { caller: string },
): Promise<MemoryTaskStore> {
  const store = new MemoryTaskStore();
  for (let i = 0; i < count; i++) {
    const now = Date.now();
    const record = {
      taskId: `t-${i}`,
      era: 'modern' as const,
      ...owner(i),
      tool: 'echo',
      status: 'working' as const,
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: 3_600_000,
      pollIntervalMs: 1_000,
    };
    await store.create(record).catch(() => undefined);
    await store.update(record.taskId, {
      status: 'completed',
      result: { content: [{ type: 'text', text: 'ok' }] },
    });
  }
  return store;
}
const countTasks = await held(() => smallTasks(12_000, (i) => ({ principal: `issuer caller-${i % 20}` })));
row(
  'tasks in all',
  DEFAULT_TASK_LIMITS.maxTasks.toLocaleString('en'),
  countTasks,
  '12,000 small tasks by 20 callers offered',
);

// Legacy sessions and listen streams: a real server over HTTP and in-process connections.
const server = new McpServer({ name: 'bounds-memory', version: '1' }).tool({
  name: 'hello',
  inputSchema: { type: 'object', properties: {} },
  handler: () => 'hello',
});
await server.listen({ http: { port: 0, unusedSessionMs: 600_000 }, handleSignals: false });
const url = `http://127.0.0.1:${server.addresses.http!.port}/mcp`;
const sessionsHeld = await held(async () => {
  for (let i = 0; i < 1_500; i++) {
    const made = await initializeSession(url);
    await pingSession(url, made.id!);
  }
});
row(
  'legacy sessions per caller (`maxSessionsPerCaller`)',
  '1,000',
  sessionsHeld,
  `1,500 used sessions by one caller offered; ${server.stats.tables.sessions} kept`,
);

const envelope = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'listener', version: '1' },
};
/** `count` in-process connections to `target` (of `principal`, if given), each offered `listens` listens. */
async function openListens(target: McpServer, count: number, listens: number, principal?: Principal) {
  const connections = [];
  for (let c = 0; c < count; c++) {
    const connection = target.connect({ send: () => {} }, undefined, principal);
    connections.push(connection);
    for (let i = 0; i < listens; i++) {
      void connection.receive({
        jsonrpc: '2.0',
        id: i,
        method: 'subscriptions/listen',
        params: { notifications: { toolsListChanged: true }, _meta: envelope },
      });
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
  return connections;
}
const listensHeld = await held(() => openListens(server, 200, 100));
row(
  'listen streams (`bounds.maxListens`, 64 per connection)',
  '10,000',
  listensHeld,
  `200 connections x 100 listens offered; ${server.stats.tables.listens} open`,
);

// list_changed: one change per session per turn; the loop's worst stall while 1,000 tools come and go.
const delay = monitorEventLoopDelay({ resolution: 5 });
delay.enable();
for (let i = 0; i < 1_000; i++)
  server.tool({ name: `t${i}`, inputSchema: { type: 'object', properties: {} }, handler: () => 'x' });
for (let i = 0; i < 1_000; i++) server.removeTool(`t${i}`);
await new Promise((resolve) => setTimeout(resolve, 200));
delay.disable();
await server.close();

// One caller's share of each capacity at its default: what a single caller can make the server hold.
const perCallerTaskCount = await held(() => smallTasks(1_200, () => ({ caller: 'address 127.0.0.2' })));
row(
  'tasks per caller (`maxPerCaller`)',
  DEFAULT_TASK_LIMITS.maxPerCaller.toLocaleString('en'),
  perCallerTaskCount,
  '1,200 small tasks by one anonymous address offered',
);

const shares = new McpServer({ name: 'share-memory', version: '1' });
await shares.listen({ ws: { port: 0 }, handleSignals: false });
const alice = makePrincipal({ subject: 'alice', issuer: 'https://issuer.test' });
const perCallerListens = await held(() => openListens(shares, 20, 64, alice));
row(
  'listen streams per caller (`bounds.maxListensPerCaller`)',
  DEFAULT_MAX_LISTENS_PER_CALLER.toLocaleString('en'),
  perCallerListens,
  `one principal, 20 connections x 64 listens offered; ${shares.stats.tables.listens} open`,
);

const wsUrl = `ws://127.0.0.1:${shares.addresses.ws!.port}`;
let refusedSockets = 0;
const perCallerSockets = await held(async () => {
  const sockets: WebSocket[] = [];
  for (let i = 0; i < 120; i++) {
    const socket = new WebSocket(wsUrl, 'mcp', { localAddress: '127.0.0.2' });
    await new Promise<void>((resolve) => {
      socket.once('open', () => resolve());
      socket.once('unexpected-response', () => {
        refusedSockets++;
        resolve();
      });
      socket.once('error', () => resolve());
    });
    if (socket.readyState === socket.OPEN) sockets.push(socket);
  }
  return sockets;
});
row(
  'WebSocket connections per caller (`maxConnectionsPerCaller`)',
  String(DEFAULT_MAX_CONNECTIONS_PER_CALLER),
  perCallerSockets,
  `120 upgrades from one address offered; ${120 - refusedSockets} open (both ends in this process)`,
);
await shares.close();

console.log('| Bound | Default cap | Heap at the cap | Flood |');
console.log('|---|---|---|---|');
for (const line of rows) console.log(line);
console.log(
  `\n1,000 tools added and removed with 10,000 listen streams open: worst event-loop stall ${(delay.max / 1e6).toFixed(0)} ms`,
);
