/**
 * A call a worker makes through ctx.tools().call is cancelled with the call that made it, from a
 * pool thread and from a pool process alike, as it is inline.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { McpServer } from '../../lib/index.js';
import { InProcessClient } from '../support/in-process-client.js';
import { innerCalls, outerInProcess, outerInThread, waitsForCancel } from './ctx-tools.js';

const server = new McpServer({ name: 'inner-cancel', version: '1', pool: { maxThreads: 2 } })
  .tool(waitsForCancel)
  .tool(outerInThread)
  .tool(outerInProcess);
after(() => server.close());

async function until(condition: () => boolean, what: string): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    assert.ok(Date.now() - started < 10_000, `timed out waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('inner calls from a worker', () => {
  for (const outer of ['outer_in_thread', 'outer_in_process']) {
    it(`are cancelled with their outer call (${outer})`, async () => {
      const client = new InProcessClient(server);
      await client.initialize();
      const { started, aborted } = innerCalls;
      client.send({
        jsonrpc: '2.0',
        id: outer,
        method: 'tools/call',
        params: { name: outer, arguments: {} },
      });
      await until(() => innerCalls.started > started, 'the inner call started');
      assert.equal(innerCalls.aborted, aborted, 'the inner call runs until the outer one is cancelled');
      client.notify('notifications/cancelled', { requestId: outer });
      await until(() => innerCalls.aborted > aborted, "the inner call's signal aborted");
      client.close();
    });
  }
});
