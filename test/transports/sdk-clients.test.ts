/**
 * The official SDK client against the demo server over Streamable HTTP and over WebSocket: listing
 * across pages in name order, inline and blocking calls, progress, and a cancel from the client.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';
import { WebSocket } from 'ws';
import { DEMO_TOOL_NAMES, listToolNames } from '../support/list-tools.js';
import { type DemoProcess, startDemo } from './demo-process.js';

// Node 20 has no global WebSocket; the SDK's client transport expects one.
(globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;

const text = (result: unknown) => (result as { content?: { text?: string }[] }).content?.[0]?.text ?? '';

let demo: DemoProcess;
before(async () => {
  demo = await startDemo(['--page-size', '3', '--threads', '2']);
});
after(() => demo.stop());

const transports = {
  'Streamable HTTP': () => new StreamableHTTPClientTransport(demo.httpUrl),
  WebSocket: () => new WebSocketClientTransport(demo.wsUrl),
};

for (const [name, makeTransport] of Object.entries(transports)) {
  describe(`the demo over ${name}`, () => {
    let client: Client;
    before(async () => {
      client = new Client({ name: 'weft-test', version: '1.0.0' });
      await client.connect(makeTransport());
    });
    after(() => client.close());

    it('lists every tool in name order across pages', async () => {
      const { names, pages } = await listToolNames(client);
      assert.deepEqual(names, DEMO_TOOL_NAMES);
      assert.equal(pages, Math.ceil(DEMO_TOOL_NAMES.length / 3));
    });

    it('calls echo (inline) and fib (blocking)', async () => {
      assert.equal(text(await client.callTool({ name: 'echo', arguments: { text: 'héllo' } })), 'héllo');
      const fib = await client.callTool({ name: 'fib', arguments: { n: 20 } });
      assert.deepEqual(fib.structuredContent, { n: 20, value: 6765 });
    });

    it('stops a wait when the client aborts it, and keeps serving', async () => {
      const controller = new AbortController();
      const call = client.callTool({ name: 'wait', arguments: { ms: 30_000 } }, undefined, {
        signal: controller.signal,
      });
      setTimeout(() => controller.abort('changed my mind'), 100);
      await assert.rejects(call);
      assert.equal(
        text(await client.callTool({ name: 'echo', arguments: { text: 'still here' } })),
        'still here',
      );
    });
  });
}
