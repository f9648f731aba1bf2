/**
 * The grace after a cancel is for handlers that look at their flag. One that never does (a pure
 * loop) is terminated at once; one that does gets the grace and stops by itself, keeping its thread.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { McpServer } from '../../lib/index.js';
import { busy, cooperative } from '../support/fixture-tools.js';
import { InProcessClient } from '../support/in-process-client.js';

const server = new McpServer({ name: 'grace', version: '1', pool: { maxThreads: 1, graceMs: 10_000 } })
  .tool(busy)
  .tool(cooperative);
const client = new InProcessClient(server);
await client.initialize();
after(() => server.close());

async function cancelAfterStart(tool: string, id: string): Promise<number> {
  client.send({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: tool, arguments: { ms: 60_000 } },
  });
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.equal(server.stats.freeThreads, 0);
  const cancelledAt = Date.now();
  client.notify('notifications/cancelled', { requestId: id });
  while (server.stats.freeThreads === 0) {
    assert.ok(Date.now() - cancelledAt < 5_000, 'the slot came back long before the 10 s grace');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now() - cancelledAt;
}

describe('the grace after a cancel', () => {
  it('is skipped for a handler that never looked at its flag: its thread is terminated at once', async () => {
    const freedAfter = await cancelAfterStart('busy', 'never-looks');
    assert.ok(freedAfter < 2_000, `slot back after ${freedAfter} ms`);
    const next = await client.callTool('busy', { ms: 10 });
    assert.deepEqual(
      next.result?.content,
      [{ type: 'text', text: 'busy 10' }],
      'a fresh thread serves the next call',
    );
  });

  it('is given to a handler that checks its flag, which stops by itself and keeps its thread', async () => {
    const threads = server.stats.threads;
    const freedAfter = await cancelAfterStart('cooperative', 'looks');
    assert.ok(freedAfter < 2_000, `slot back after ${freedAfter} ms`);
    assert.equal(server.stats.threads, threads);
  });
});
