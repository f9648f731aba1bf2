/**
 * ctx.elicit from a blocking handler: the worker waits while the main thread asks the client, and
 * a cancel still ends the call (the worker's wait is released, its thread kept).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { McpServer } from '../../lib/index.js';
import type { JsonRpcMessage } from '../../lib/protocol/json-rpc.js';
import { askBlocking } from '../support/fixture-tools.js';
import { InProcessClient } from '../support/in-process-client.js';

const server = new McpServer({
  name: 'blocking-asks',
  version: '1',
  pool: { maxThreads: 1, graceMs: 5_000 },
}).tool(askBlocking);
after(() => server.close());

const isElicitation = (message: JsonRpcMessage) =>
  'method' in message && message.method === 'elicitation/create';
const text = (reply: unknown) =>
  (reply as { result?: { content?: { text?: string }[] } }).result?.content?.[0]?.text;

async function clientWith(capabilities: Record<string, unknown>): Promise<InProcessClient> {
  const client = new InProcessClient(server);
  await client.initialize('2025-11-25', capabilities);
  return client;
}

describe('ctx.elicit in a blocking tool', () => {
  it('relays the question to the client and returns its answer to the worker', async () => {
    const client = await clientWith({ elicitation: {} });
    const reply = client.callTool('ask_blocking', {});
    const question = (await client.waitFor(isElicitation)) as unknown as {
      id: number;
      params: { message: string };
    };
    assert.equal(question.params.message, 'Your name?');
    client.send({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { name: 'Ada' } } });
    assert.equal(text(await reply), 'accept: {"name":"Ada"}');
    client.close();
  });

  it('refuses with a tool error when the client did not declare elicitation', async () => {
    const client = await clientWith({});
    const reply = (await client.callTool('ask_blocking', {})) as { result?: { isError?: boolean } };
    assert.equal(reply.result?.isError, true);
    assert.match(text(reply) ?? '', /did not declare the "elicitation" capability/);
    client.close();
  });

  it('ends a call cancelled while it waits: no answer, and the worker is released without termination', async () => {
    const client = await clientWith({ elicitation: {} });
    const threads = server.stats.threads;
    client.send({
      jsonrpc: '2.0',
      id: 'waiting',
      method: 'tools/call',
      params: { name: 'ask_blocking', arguments: {} },
    });
    await client.waitFor(isElicitation);
    assert.equal(server.stats.freeThreads, 0);
    client.notify('notifications/cancelled', { requestId: 'waiting' });
    const started = Date.now();
    while (server.stats.freeThreads === 0) {
      assert.ok(Date.now() - started < 2_000, 'the slot came back well before the 5 s grace');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(server.stats.threads, threads, 'the thread was kept, not terminated');
    assert.ok(
      client.received.some((message) => 'method' in message && message.method === 'notifications/cancelled'),
      'the client was told its elicitation is withdrawn',
    );
    assert.equal(client.received.filter((message) => 'id' in message && message.id === 'waiting').length, 0);
    client.close();
  });
});
