/**
 * Process isolation counts slots like the thread pool: a call holds its slot while it runs, and a
 * process killed at its deadline gives the slot back only once it has really exited, after which
 * the next call runs. Checked in process, through the server's own counters.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { McpServer } from '../../lib/index.js';
import type { JsonRpcMessage } from '../../lib/protocol/json-rpc.js';
import { addInProcess, execSleepProcess } from './process-fault-tools.js';

test('a killed process holds its slot until it has exited, then the next call runs', async () => {
  const server = new McpServer({ name: 'slots', version: '0', pool: { maxThreads: 1 } })
    .tool(execSleepProcess)
    .tool(addInProcess);
  const received: JsonRpcMessage[] = [];
  const connection = server.connect({ send: (message) => received.push(...[message].flat()) });
  const answerTo = async (id: number) => {
    const until = Date.now() + 10_000;
    for (;;) {
      const found = received.find((message) => 'id' in message && (message as { id: unknown }).id === id);
      if (found) return found as { result?: { content: Array<{ text: string }>; isError?: boolean } };
      assert.ok(Date.now() < until, `no answer to ${id}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  try {
    assert.equal(server.stats.freeThreads, 1);
    connection.receive({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'exec_sleep_process', arguments: { seconds: '30' } },
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(server.stats.freeThreads, 0, 'the running call holds the only slot');
    // Queued behind it: runs only once the killed process has exited.
    connection.receive({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'add_in_process', arguments: { a: 40, b: 2 } },
    });
    const timedOut = await answerTo(1);
    assert.equal(timedOut.result?.isError, true);
    const sum = await answerTo(2);
    assert.equal(sum.result?.content[0]?.text, '42');
    const until = Date.now() + 2_000;
    while (server.stats.freeThreads !== 1 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    assert.equal(server.stats.freeThreads, 1, 'every slot is free again');
  } finally {
    connection.close();
    await server.close();
  }
});
