/**
 * Task records are bounded per caller and in total, in records and bytes. Every task-mode call
 * used to keep its record and whole result for an hour with no cap (1,000 calls with a 100 kB
 * argument: +104 MB of heap). Now the oldest finished records make room, and when a caller's room
 * is all held by running tasks its next task is refused at creation (-32013, `data.limit` and
 * `retryAfterMs`), not created and then failed.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpServer, type Principal } from '../../lib/index.js';
import { MemoryTaskStore } from '../../lib/tasks/memory-task-store.js';
import { heapUsedAfterGc, MB } from '../support/heap.js';
import { InProcessClient } from '../support/in-process-client.js';

const principal = (subject: string): Principal => ({
  subject,
  issuer: 'https://issuer.test',
  clientId: undefined,
  scopes: [],
  expiresAt: undefined,
  claims: {},
});

function taskServer(store: MemoryTaskStore): McpServer {
  return new McpServer({ name: 'task-bounds', version: '1', logError: () => {}, tasks: { store } })
    .tool({
      name: 'echo',
      task: 'optional',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      handler: ({ text }) => text as string,
    })
    .tool({
      name: 'hold',
      task: 'optional',
      inputSchema: { type: 'object', properties: {} },
      handler: (_args, ctx) =>
        new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('end'))),
    });
}

async function client(server: McpServer, who: string): Promise<InProcessClient> {
  const peer = new InProcessClient(server, principal(who));
  await peer.initialize('2025-11-25', { tasks: {} });
  return peer;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('security: task records are bounded', () => {
  it('1,000 task calls with 100 kB arguments: bytes kept within the cap, heap bounded, others served', async () => {
    const store = new MemoryTaskStore({ limits: { maxBytesPerCaller: 8 * MB, maxBytes: 16 * MB } });
    const server = taskServer(store);
    const flood = await client(server, 'flooder');
    const other = await client(server, 'other');
    const text = 'x'.repeat(100_000);
    try {
      const before = await heapUsedAfterGc();
      for (let i = 0; i < 1_000; i++) {
        const reply = await flood.request('tools/call', { name: 'echo', arguments: { text }, task: {} });
        assert.ok(reply.result?.task, `call ${i}: ${JSON.stringify(reply.error)}`);
        if (i % 50 === 0) await settle();
      }
      await settle();
      const { bytes, count } = store.totals;
      assert.ok(bytes <= 8 * MB, `${(bytes / MB).toFixed(1)} MB of task records kept (cap 8 MiB)`);
      const grown = (await heapUsedAfterGc()) - before;
      assert.ok(grown < 24 * MB, `heap grew ${(grown / MB).toFixed(1)} MB over 1,000 tasks (${count} kept)`);
      const served = await other.request('tools/call', { name: 'echo', arguments: { text: 'hi' }, task: {} });
      assert.ok(served.result?.task, 'another caller is served');
    } finally {
      await server.close();
    }
  });

  it('a caller whose room is all running tasks is refused at creation with the limit and retryAfterMs', async () => {
    const store = new MemoryTaskStore({ limits: { maxPerCaller: 3 } });
    const server = taskServer(store);
    const mine = await client(server, 'holder');
    const other = await client(server, 'other');
    try {
      for (let i = 0; i < 3; i++) {
        const reply = await mine.request('tools/call', { name: 'hold', arguments: {}, task: {} });
        assert.ok(reply.result?.task, JSON.stringify(reply.error));
      }
      const refused = await mine.request('tools/call', { name: 'hold', arguments: {}, task: {} });
      assert.equal(refused.error?.code, -32013, JSON.stringify(refused));
      const data = (refused.error as { data?: { limit?: string; max?: number; retryAfterMs?: number } }).data;
      assert.equal(data?.limit, 'maxPerCaller');
      assert.equal(data?.max, 3);
      assert.ok((data?.retryAfterMs ?? 0) > 0);
      assert.match(refused.error!.message, /No task was created/);
      assert.equal(store.totals.count, 3, 'nothing was created for the refused call');
      const served = await other.request('tools/call', { name: 'hold', arguments: {}, task: {} });
      assert.ok(served.result?.task, 'another caller is served');
    } finally {
      await server.close();
    }
  });
});
