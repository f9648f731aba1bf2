/**
 * The fault matrix as the official SDK client sees it: the same faults over stdio, each run while
 * other calls are in flight, surface as what a real host would show (an `isError` result, an
 * `McpError`, or its own cancellation), and the client's connection stays usable throughout.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';

const SERVER = fileURLToPath(new URL('./fault-server.js', import.meta.url));

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }> };

describe('faults through the official SDK client', () => {
  let client: Client;

  before(async () => {
    client = new Client({ name: 'weft-faults', version: '0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: 'ignore' }),
    );
  });

  after(() => client.close());

  const call = (name: string, args: Record<string, unknown> = {}, options = {}) =>
    client.callTool({ name, arguments: args }, undefined, options) as Promise<ToolResult>;

  test('timeouts, tool errors and dead workers, each amid healthy calls', async () => {
    const healthy = Promise.all([call('echo', { text: 'a' }), call('add_in_thread', { a: 1, b: 2 })]);
    const [loop, thrown, sleeper, dead] = await Promise.allSettled([
      call('loop_forever'),
      call('throws_error'),
      call('exec_sleep_process', { seconds: '30' }),
      call('exits_process'),
    ]);
    assert.equal(loop.status === 'fulfilled' && loop.value.isError, true);
    assert.equal(thrown.status === 'fulfilled' && thrown.value.content[0]?.text, 'the tool broke on purpose');
    assert.equal(sleeper.status === 'fulfilled' && sleeper.value.isError, true);
    assert.equal(dead.status, 'rejected');
    assert.ok((dead as PromiseRejectedResult).reason instanceof McpError);
    assert.equal(((dead as PromiseRejectedResult).reason as McpError).code, -32603);
    const [echo, sum] = await healthy;
    assert.equal(echo.content[0]?.text, 'a');
    assert.equal(sum.content[0]?.text, '3');
  });

  test('an aborted call stops its process and the connection carries on', async () => {
    const abort = new AbortController();
    const pending = call('exec_sleep_cancellable', { seconds: '30' }, { signal: abort.signal });
    setTimeout(() => abort.abort(), 300);
    await assert.rejects(pending);
    const echo = await call('echo', { text: 'after the abort' });
    assert.equal(echo.content[0]?.text, 'after the abort');
    await client.ping();
  });
});
