/**
 * The 2026-07-28 era over WebSocket: the same modern messages, one per frame, with no handshake;
 * a legacy session may share the socket, each message answered in its own era; a modern call is
 * cancelled with `notifications/cancelled`, as on stdio.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import { McpServer } from '../../lib/index.js';
import { envelope, type Wire } from './modern-http-peer.js';

type Message = Wire;

function open(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url, 'mcp');
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

function answerTo(socket: WebSocket, id: number): Promise<Message> {
  return new Promise((resolve) => {
    const onMessage = (data: Buffer) => {
      const message = JSON.parse(data.toString()) as Message;
      if (message.id !== id) return;
      socket.off('message', onMessage);
      resolve(message);
    };
    socket.on('message', onMessage);
  });
}

async function call(socket: WebSocket, id: number, method: string, params: Message): Promise<Message> {
  const answer = answerTo(socket, id);
  socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  return answer;
}

describe('the modern era over WebSocket', () => {
  let server: McpServer;
  let url: string;
  let lingerAborted = false;
  before(async () => {
    server = new McpServer({ name: 'modern-ws', version: '1' })
      .tool({
        name: 'echo',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        handler: ({ text }) => text,
      })
      .tool({
        name: 'linger',
        inputSchema: { type: 'object', properties: {} },
        handler: (_args, ctx) =>
          new Promise((_resolve, reject) => {
            ctx.signal.addEventListener('abort', () => {
              lingerAborted = true;
              reject(ctx.signal.reason);
            });
          }),
      });
    await server.listen({ ws: { port: 0 }, handleSignals: false });
    url = `ws://127.0.0.1:${server.addresses.ws!.port}`;
  });
  after(() => server.close());

  it('serves modern requests with no handshake, each answered in the modern shape', async () => {
    const socket = await open(url);
    try {
      const discovered = await call(socket, 1, 'server/discover', { _meta: envelope() });
      assert.deepEqual(discovered.result.supportedVersions.includes('2026-07-28'), true);
      assert.equal(discovered.result.resultType, 'complete');
      const echoed = await call(socket, 2, 'tools/call', {
        name: 'echo',
        arguments: { text: 'hi' },
        _meta: envelope(),
      });
      assert.equal(echoed.result.content[0].text, 'hi');
      assert.equal(echoed.result.resultType, 'complete');
      assert.equal(echoed.result._meta['io.modelcontextprotocol/serverInfo'].name, 'modern-ws');
      const missing = await call(socket, 3, 'ping', { _meta: envelope() });
      assert.equal(missing.error.code, -32601);
    } finally {
      socket.close();
    }
  });

  it('answers a legacy session and modern requests on one socket, each in its own era', async () => {
    const socket = await open(url);
    try {
      const init = await call(socket, 10, 'initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'legacy', version: '1' },
      });
      assert.equal(init.result.protocolVersion, '2025-11-25');
      socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      const legacy = await call(socket, 11, 'tools/call', { name: 'echo', arguments: { text: 'old' } });
      assert.equal(legacy.result.resultType, undefined);
      const modern = await call(socket, 12, 'tools/call', {
        name: 'echo',
        arguments: { text: 'new' },
        _meta: envelope(),
      });
      assert.equal(modern.result.resultType, 'complete');
    } finally {
      socket.close();
    }
  });

  it('a modern call is cancelled by notifications/cancelled', async () => {
    const socket = await open(url);
    try {
      socket.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 20,
          method: 'tools/call',
          params: { name: 'linger', arguments: {}, _meta: envelope() },
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.send(
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 20 } }),
      );
      const began = Date.now();
      while (!lingerAborted && Date.now() - began < 1_000)
        await new Promise((resolve) => setTimeout(resolve, 10));
      assert.ok(lingerAborted);
    } finally {
      socket.close();
    }
  });
});
