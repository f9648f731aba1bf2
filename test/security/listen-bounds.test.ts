/**
 * Listen streams are bounded: one WebSocket used to hold any number of `subscriptions/listen`
 * streams (20,000 acknowledged, +40 MB), each visited by every list change. Now a connection holds
 * at most `bounds.maxListensPerConnection` and the server `bounds.maxListens`; one more is refused
 * (-32013, `data.limit` naming the bound), and the others' streams and calls go on.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WebSocket } from 'ws';
import { McpServer } from '../../lib/index.js';
import { heapUsedAfterGc, MB } from '../support/heap.js';
import { acknowledgements, keepingPeer, listenRequest } from '../support/listen-peer.js';
import { envelope, type Wire } from '../transports/modern-http-peer.js';

const peer = (url: string) => keepingPeer(url);
const listen = listenRequest;
const acks = acknowledgements;
const refusals = (received: Wire[], limit: string) =>
  received.filter((message) => message.error?.code === -32013 && message.error.data?.limit === limit).length;

async function until(done: () => boolean, withinMs: number, what: string): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('security: listen streams are bounded', () => {
  it('20,000 listens on one WebSocket: 64 open, the rest refused with data.limit; heap bounded; others served', async () => {
    const server = new McpServer({ name: 'listen-bounds', version: '1', bounds: { maxListens: 100 } }).tool({
      name: 'hello',
      inputSchema: { type: 'object', properties: {} },
      handler: () => 'hello',
    });
    await server.listen({ ws: { port: 0 }, handleSignals: false });
    const url = `ws://127.0.0.1:${server.addresses.ws!.port}`;
    const peers: WebSocket[] = [];
    try {
      const before = await heapUsedAfterGc();
      const flood = await peer(url);
      peers.push(flood.socket);
      for (let id = 1; id <= 20_000; id++) flood.socket.send(listen(id));
      await until(() => flood.received.length >= 20_000, 60_000, 'an answer to every listen');
      assert.equal(acks(flood.received), 64);
      assert.equal(refusals(flood.received, 'maxListensPerConnection'), 20_000 - 64);
      assert.match(
        flood.received.find((message) => message.error)!.error.message,
        /bounds\.maxListensPerConnection allows 64/,
      );
      // The bound is on what the server keeps: the 20,000 answers this peer parsed and kept (about
      // 400 bytes each, 8 MB in all) are counted above and let go before the heap is read.
      flood.received.length = 0;
      const grown = (await heapUsedAfterGc()) - before;
      assert.ok(grown < 8 * MB, `heap grew ${(grown / MB).toFixed(1)} MB over 20,000 listens`);

      const second = await peer(url);
      peers.push(second.socket);
      for (let id = 1; id <= 64; id++) second.socket.send(listen(id));
      await until(() => second.received.length >= 64, 10_000, 'an answer to 64 listens');
      assert.equal(acks(second.received), 36, 'the server-wide cap (100) leaves 36');
      assert.equal(refusals(second.received, 'maxListens'), 28);
      assert.equal(server.stats.tables.listens, 100);

      const third = await peer(url);
      peers.push(third.socket);
      third.socket.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'hello', arguments: {}, _meta: envelope() },
        }),
      );
      await until(() => third.received.length >= 1, 10_000, 'the call answered');
      assert.equal(third.received[0].result?.content?.[0]?.text, 'hello', 'another caller is served');

      // A list change reaches each open stream once.
      server.tool({ name: 'late', inputSchema: { type: 'object', properties: {} }, handler: () => 'late' });
      const changed = (received: Wire[]) =>
        received.filter((message) => message.method === 'notifications/tools/list_changed').length;
      await until(
        () => changed(flood.received) === 64 && changed(second.received) === 36,
        10_000,
        'list_changed',
      );

      flood.socket.close();
      await until(() => server.stats.tables.listens === 36, 10_000, 'the closed connection’s streams end');
    } finally {
      for (const socket of peers) socket.close();
      await server.close();
    }
  });
});
