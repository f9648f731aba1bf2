/**
 * What leaves the server when something other than a tool result cannot be sent as JSON: another
 * method's result (-32603 with a fixed message under its id, the detail in the server log), a
 * notification (dropped, logged, the call still answered), a request to the client (refused to the
 * handler that made it, so nothing waits for an answer that cannot come), and one member of a batch
 * (the others answered). Messages are encoded as a transport encodes them and parsed back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { McpServer } from '../../lib/index.js';
import type { Connection } from '../../lib/transports/connection.js';

type Message = Record<string, unknown> & { id?: unknown; method?: string };

const logged: string[] = [];
const server = new McpServer({ name: 'unsendable', version: '0', logError: (line) => logged.push(line) })
  .prompt({
    name: 'bigint_prompt',
    get: () => [{ role: 'assistant', content: { type: 'text', text: 'x', _meta: { count: 3n } } }] as never,
  })
  .tool({
    name: 'logs_bigint',
    inputSchema: { type: 'object' },
    handler: (_args, ctx) => {
      ctx.log('info', { count: 5n });
      return 'answered after the log';
    },
  })
  .tool({
    name: 'asks_with_bigint',
    inputSchema: { type: 'object' },
    handler: async (_args, ctx) => {
      try {
        await ctx.sample!({ messages: [{ n: 1n }], maxTokens: 5 } as never);
        return 'the request went out';
      } catch (error) {
        return `refused: ${(error as Error).message}`;
      }
    },
  });

after(() => server.close());

/** A peer that sees exactly the text a transport would write. */
function encodingPeer(): { connection: Connection; received: Message[] } {
  const received: Message[] = [];
  const connection: Connection = server.connect({
    send: (message) => {
      const text = connection.encode(message);
      if (text === undefined) return;
      const parsed = JSON.parse(text) as Message | Message[];
      received.push(...(Array.isArray(parsed) ? parsed : [parsed]));
    },
  });
  return { connection, received };
}

async function answerTo(received: Message[], id: unknown): Promise<Message> {
  const until = Date.now() + 5_000;
  for (;;) {
    const found = received.filter((message) => message.id === id && message.method === undefined);
    if (found.length > 0) {
      assert.equal(found.length, 1, `id ${String(id)} answered ${found.length} times`);
      return found[0]!;
    }
    assert.ok(Date.now() < until, `no answer for ${String(id)}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function initialize(connection: Connection, protocolVersion: string, capabilities = {}) {
  connection.receive({
    jsonrpc: '2.0',
    id: 'init',
    method: 'initialize',
    params: { protocolVersion, capabilities, clientInfo: { name: 't', version: '0' } },
  });
  connection.receive({ jsonrpc: '2.0', method: 'notifications/initialized' });
}

describe('answers that cannot be sent as JSON, beyond tool results', () => {
  let peer: ReturnType<typeof encodingPeer>;
  before(() => {
    peer = encodingPeer();
    initialize(peer.connection, '2025-11-25', { sampling: {} });
  });

  it('another method whose result cannot be sent gets -32603 under its id; the detail is logged', async () => {
    logged.length = 0;
    peer.connection.receive({
      jsonrpc: '2.0',
      id: 1,
      method: 'prompts/get',
      params: { name: 'bigint_prompt' },
    });
    const answer = await answerTo(peer.received, 1);
    const error = answer.error as { code: number; message: string };
    assert.equal(error.code, -32603);
    assert.match(error.message, /could not encode its result \(details are in the server log\)/);
    assert.doesNotMatch(error.message, /BigInt/, 'the detail stays in the log');
    assert.match(
      logged.join('\n'),
      /prompts\/get cannot be sent as JSON: a BigInt at messages\[0\]\.content\._meta\.count/,
    );
    peer.connection.receive({ jsonrpc: '2.0', id: 2, method: 'ping' });
    assert.deepEqual((await answerTo(peer.received, 2)).result, {});
  });

  it('a log notification that cannot be sent is dropped and logged; the call is answered', async () => {
    logged.length = 0;
    peer.connection.receive({
      jsonrpc: '2.0',
      id: 3,
      method: 'logging/setLevel',
      params: { level: 'debug' },
    });
    await answerTo(peer.received, 3);
    peer.connection.receive({
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: 'logs_bigint', arguments: {} },
    });
    const answer = await answerTo(peer.received, 4);
    assert.deepEqual(answer.result, { content: [{ type: 'text', text: 'answered after the log' }] });
    assert.equal(peer.received.filter((message) => message.method === 'notifications/message').length, 0);
    assert.match(logged.join('\n'), /dropped an outgoing notifications\/message that cannot be sent as JSON/);
  });

  it('a request to the client whose params cannot be sent is refused to the handler at once', async () => {
    peer.connection.receive({
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/call',
      params: { name: 'asks_with_bigint', arguments: {} },
    });
    const answer = await answerTo(peer.received, 5);
    const text = (answer.result as { content: Array<{ text: string }> }).content[0]!.text;
    assert.match(
      text,
      /^refused: Cannot send sampling\/createMessage: its params cannot be sent as JSON: a BigInt/,
    );
    assert.equal(peer.received.filter((message) => message.method === 'sampling/createMessage').length, 0);
  });
});

describe('a batch with one unsendable member', () => {
  it('answers the other members, and the unsendable one with -32603 under its id', async () => {
    const { connection, received } = encodingPeer();
    initialize(connection, '2025-03-26');
    connection.receive([
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', id: 'b', method: 'prompts/get', params: { name: 'bigint_prompt' } },
      { jsonrpc: '2.0', id: 'c', method: 'tools/list' },
    ]);
    assert.deepEqual((await answerTo(received, 'a')).result, {});
    const unsendable = await answerTo(received, 'b');
    assert.equal((unsendable.error as { code: number } | undefined)?.code, -32603);
    assert.ok(Array.isArray(((await answerTo(received, 'c')).result as { tools: unknown[] }).tools));
  });
});
