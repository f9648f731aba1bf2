/**
 * Long-lived and heavy modern streams over HTTP: a `subscriptions/listen` stream stays open, carries
 * its acknowledgement first and the change notifications it asked for, ends when the client closes
 * it and ends gracefully at shutdown; a reader that stops reading has its stream cut and its call
 * cancelled instead of the server buffering without bound.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { describe, it } from 'node:test';
import { McpServer } from '../../lib/index.js';
import { SseReader } from '../support/sse-reader.js';
import { envelope, standardHeaders } from './modern-http-peer.js';

async function until(condition: () => boolean, withinMs: number): Promise<void> {
  const began = performance.now();
  while (!condition()) {
    if (performance.now() - began > withinMs) throw new Error(`condition not met within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const listenServer = () =>
  new McpServer({ name: 'modern-listen', version: '1', shutdownGraceMs: 200 }).tool({
    name: 'first',
    inputSchema: { type: 'object', properties: {} },
    handler: () => 'first',
  });

async function openListen(url: string, id: number | string, signal?: AbortSignal) {
  const params = { notifications: { toolsListChanged: true, promptsListChanged: true }, _meta: envelope() };
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...standardHeaders('subscriptions/listen', params),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params }),
    ...(signal ? { signal } : {}),
  });
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
  return new SseReader(response.body!);
}

describe('modern HTTP listen streams', () => {
  it('acknowledge first, carry what was asked with the subscription id, and end when the client closes', async () => {
    const server = listenServer();
    await server.listen({ http: { port: 0 }, handleSignals: false });
    const url = `http://127.0.0.1:${server.addresses.http!.port}/mcp`;
    try {
      const abort = new AbortController();
      const stream = await openListen(url, 'listen-1', abort.signal);
      const ack = await stream.next();
      assert.equal(ack.method, 'notifications/subscriptions/acknowledged');
      assert.equal(ack.params._meta['io.modelcontextprotocol/subscriptionId'], 'listen-1');
      // Tools can change (listChanged), prompts are not served: only the first is granted.
      assert.deepEqual(ack.params.notifications, { toolsListChanged: true });

      server.tool({
        name: 'second',
        inputSchema: { type: 'object', properties: {} },
        handler: () => 'second',
      });
      const changed = await stream.next();
      assert.equal(changed.method, 'notifications/tools/list_changed');
      assert.equal(changed.params._meta['io.modelcontextprotocol/subscriptionId'], 'listen-1');

      assert.equal(server.stats.inFlight, 1);
      abort.abort();
      await until(() => server.stats.inFlight === 0, 1_000);
    } finally {
      await server.close();
    }
  });

  it('is answered and ended gracefully when the server shuts down', async () => {
    const server = listenServer();
    await server.listen({ http: { port: 0 }, handleSignals: false });
    const url = `http://127.0.0.1:${server.addresses.http!.port}/mcp`;
    const stream = await openListen(url, 9);
    assert.equal((await stream.next()).method, 'notifications/subscriptions/acknowledged');
    const closing = server.close();
    const last = await stream.next();
    assert.equal(last.id, 9);
    assert.equal(last.result.resultType, 'complete');
    assert.equal(last.result._meta['io.modelcontextprotocol/subscriptionId'], 9);
    assert.equal(await stream.next(), undefined);
    assert.ok(stream.ended);
    await closing;
  });
});

describe('modern HTTP streams are bounded', () => {
  it('a reader that stops reading has its stream cut and its call cancelled', async (t) => {
    let sent = 0;
    let aborted = false;
    const server = new McpServer({ name: 'modern-backlog', version: '1' }).tool({
      name: 'chatty',
      description: 'Reports progress with a 1 KiB message until cancelled (or 200 000 times)',
      inputSchema: { type: 'object', properties: {} },
      handler: async (_args, ctx) => {
        const text = 'x'.repeat(1024);
        while (!ctx.signal.aborted && sent < 200_000) {
          for (let i = 0; i < 100; i++) ctx.progress(++sent, undefined, text);
          await new Promise((resolve) => setImmediate(resolve));
        }
        aborted = ctx.signal.aborted;
        return 'done';
      },
    });
    await server.listen({ http: { port: 0, maxStreamBacklogBytes: 256 * 1024 }, handleSignals: false });
    const port = server.addresses.http!.port;
    try {
      const params = { name: 'chatty', arguments: {}, _meta: { ...envelope(), progressToken: 'p' } };
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params });
      const request = httpRequest({
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...standardHeaders('tools/call', params),
        },
      });
      // The client takes the headers, then never reads a byte of the stream.
      request.on('response', (response) => response.pause());
      request.end(body);
      await until(() => aborted, 20_000);
      assert.ok(sent < 200_000, `the call should have been cancelled, it sent ${sent} notifications`);
      assert.equal(server.stats.inFlight, 0);
      t.diagnostic(`cut after ${sent} notifications of 1 KiB (backlog limit 256 KiB)`);
      request.destroy();
    } finally {
      await server.close();
    }
  });
});
