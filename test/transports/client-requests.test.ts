/**
 * Server-to-client requests from inline handlers (`ctx.elicit`, `ctx.sample`) and what a handler
 * reaches of its server (`ctx.tools()`, `ctx.resources()`, `ctx.prompts()`): over Streamable HTTP
 * with the official SDK client, and in process where the exact messages matter.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpServer } from '../../lib/index.js';
import type { JsonRpcMessage } from '../../lib/protocol/json-rpc.js';
import { InProcessClient } from '../support/in-process-client.js';

const text = (result: unknown) => (result as { content?: { text?: string }[] }).content?.[0]?.text ?? '';

function askingServer(): McpServer {
  return new McpServer({ name: 'asking', version: '1.0.0' })
    .tool({
      name: 'ask',
      description: 'Asks the user for a name',
      inputSchema: { type: 'object', properties: {} },
      timeoutMs: 1_000,
      handler: async (_args, ctx) => {
        const answer = await ctx.elicit!({
          message: 'Your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        });
        return `${answer.action}: ${JSON.stringify(answer.content ?? {})}`;
      },
    })
    .tool({
      name: 'think',
      description: "Asks the client's model",
      inputSchema: { type: 'object', properties: {} },
      handler: async (_args, ctx) => {
        const answer = await ctx.sample!({
          messages: [{ role: 'user', content: { type: 'text', text: 'two plus two?' } }],
          maxTokens: 5,
        });
        return `model ${answer.model} said ${(answer.content as { text: string }).text}`;
      },
    })
    .tool({
      name: 'delegate',
      description: 'Calls another tool of this server and publishes a resource',
      inputSchema: { type: 'object', properties: {} },
      handler: async (_args, ctx) => {
        const inner = await ctx.tools!().call('shout', { text: 'hi' });
        await ctx.resources().add({ uri: 'app://made-by-a-tool', name: 'made', read: () => 'made' });
        const tools = await ctx.tools().list();
        const prompts = await ctx.prompts().list();
        return `${text(inner)} / tools: ${tools.length} / prompts: ${prompts.length}`;
      },
    })
    .tool({
      name: 'shout',
      description: 'Upper-cases its text',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      handler: ({ text }) => text.toUpperCase(),
    });
}

describe('ctx.elicit and ctx.sample with the SDK client over Streamable HTTP', () => {
  let server: McpServer;
  let url: URL;
  before(async () => {
    server = askingServer();
    await server.listen({ http: { port: 0 }, handleSignals: false });
    url = new URL(`http://127.0.0.1:${server.addresses.http!.port}/mcp`);
  });
  after(() => server.close());

  it('relays an elicitation to a client that declared the capability and returns its answer', async () => {
    const client = new Client({ name: 't', version: '1' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      assert.equal(request.params.message, 'Your name?');
      return { action: 'accept', content: { name: 'Ada' } };
    });
    await client.connect(new StreamableHTTPClientTransport(url));
    assert.equal(text(await client.callTool({ name: 'ask', arguments: {} })), 'accept: {"name":"Ada"}');
    await client.close();
  });

  it('relays sampling to a client that declared the capability', async () => {
    const client = new Client({ name: 't', version: '1' }, { capabilities: { sampling: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: 'assistant',
      content: { type: 'text', text: 'four' },
      model: 'test-model',
    }));
    await client.connect(new StreamableHTTPClientTransport(url));
    assert.equal(text(await client.callTool({ name: 'think', arguments: {} })), 'model test-model said four');
    await client.close();
  });

  it('answers with a tool error naming the capability when the client did not declare it', async () => {
    const client = new Client({ name: 't', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(url));
    const result = await client.callTool({ name: 'ask', arguments: {} });
    assert.equal(result.isError, true);
    assert.match(text(result), /did not declare the "elicitation" capability/);
    await client.close();
  });

  it('lets a handler call another tool, publish a resource and read the prompt list', async () => {
    const client = new Client({ name: 't', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(url));
    assert.equal(
      text(await client.callTool({ name: 'delegate', arguments: {} })),
      'HI / tools: 4 / prompts: 0',
    );
    const { contents } = await client.readResource({ uri: 'app://made-by-a-tool' });
    assert.equal((contents[0] as { text: string }).text, 'made');
    await client.close();
  });
});

describe('a tool called from a handler', () => {
  it('is cancelled when the calling handler’s call is cancelled', async () => {
    let innerAborted = false;
    const server = new McpServer({ name: 'nested', version: '1.0.0' })
      .tool({
        name: 'inner',
        description: 'Waits until aborted',
        inputSchema: { type: 'object', properties: {} },
        handler: (_args, ctx) =>
          new Promise((_resolve, reject) =>
            ctx.signal.addEventListener('abort', () => {
              innerAborted = true;
              reject(ctx.signal.reason);
            }),
          ),
      })
      .tool({
        name: 'outer',
        description: 'Calls inner',
        inputSchema: { type: 'object', properties: {} },
        handler: (_args, ctx) => ctx.tools!().call('inner'),
      });
    const peer = new InProcessClient(server);
    await peer.initialize();
    void peer.callTool('outer', {});
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(server.stats.inFlight, 2, 'outer and the inner call it made are both running');
    peer.notify('notifications/cancelled', { requestId: 2 });
    const deadline = Date.now() + 2_000;
    while (server.stats.inFlight > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(innerAborted, true);
    assert.equal(server.stats.inFlight, 0);
    await server.close();
  });
});

describe('a pending client request when the call ends', () => {
  const elicitRequest = (message: JsonRpcMessage) =>
    'method' in message && message.method === 'elicitation/create';

  it('is withdrawn with notifications/cancelled when the client cancels the call', async () => {
    const server = askingServer();
    const peer = new InProcessClient(server);
    await peer.initialize('2025-11-25', { elicitation: {} });
    void peer.callTool('ask', {}, {});
    const asked = (await peer.waitFor(elicitRequest)) as { id: string };
    const toolCallId = 2;
    peer.notify('notifications/cancelled', { requestId: toolCallId });
    const withdrawn = (await peer.waitFor(
      (message) => 'method' in message && message.method === 'notifications/cancelled',
    )) as unknown as { params: { requestId: string } };
    assert.equal(withdrawn.params.requestId, asked.id);
    // A late answer to the withdrawn request is ignored, and the call sends no response.
    peer.send({ jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { name: 'late' } } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(peer.received.filter((message) => 'id' in message && message.id === toolCallId).length, 0);
    await server.close();
  });

  it('does not outlive the call deadline: the call times out while the client stays silent', async () => {
    const server = askingServer();
    const peer = new InProcessClient(server);
    await peer.initialize('2025-11-25', { elicitation: {} });
    const started = Date.now();
    const reply = await peer.callTool('ask', {});
    assert.equal(reply.result?.isError, true);
    assert.match(reply.result?.content?.[0]?.text ?? '', /1000 ms deadline/);
    assert.ok(Date.now() - started < 3_000);
    await server.close();
  });
});
