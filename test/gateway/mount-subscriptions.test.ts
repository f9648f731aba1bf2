/**
 * What a gateway's subscribers cost its upstream, counted at the upstream (a counting proxy in
 * front of a real upstream process): one upstream subscription per URI however many local
 * subscribers share it, released when the last of them leaves (modern: the upstream listen stream
 * closed; legacy: resources/unsubscribe), and a cap on watched URIs per mount refused with -32013.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { Client as Sdk1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Sdk1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connect, McpError } from '../../lib/client/index.js';
import { McpServer } from '../../lib/index.js';
import { freePort } from '../support/free-port.js';
import { killed, startUpstream } from './restartable-process.js';

/** What the upstream is holding for the gateway, as seen on the wire in front of it. */
interface UpstreamCount {
  /** Resource listen streams open now. */
  listens: number;
  subscribes: number;
  unsubscribes: number;
}

function countingProxy(upstreamPort: number): Promise<{ server: Server; url: string; count: UpstreamCount }> {
  const count: UpstreamCount = { listens: 0, subscribes: 0, unsubscribes: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const text = body.toString();
      if (text.includes('"resources/subscribe"')) count.subscribes++;
      if (text.includes('"resources/unsubscribe"')) count.unsubscribes++;
      if (text.includes('"subscriptions/listen"') && text.includes('resourceSubscriptions')) {
        count.listens++;
        res.once('close', () => count.listens--);
      }
      const upstream = httpRequest(
        { host: '127.0.0.1', port: upstreamPort, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      res.once('close', () => upstream.destroy());
      upstream.end(body);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ server, url: `http://127.0.0.1:${port}/mcp`, count });
    }),
  );
}

async function until(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const start = performance.now();
  while (!check()) {
    if (performance.now() - start > ms) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const URIS = ['up+item://1', 'up+item://2', 'up+item://3', 'up+item://4'];

for (const era of ['modern', 'legacy'] as const) {
  describe(`gateway subscriptions, ${era}-era upstream`, () => {
    let child: ChildProcess;
    let proxy: Awaited<ReturnType<typeof countingProxy>>;
    let gateway: McpServer;
    let url: string;
    before(async () => {
      const port = await freePort();
      child = await startUpstream(port, 'before');
      proxy = await countingProxy(port);
      gateway = new McpServer({ name: 'gateway', version: '0.0.0', logError: () => {} });
      await gateway.mount(proxy.url, { namespace: 'up', protocol: era, maxWatchedUris: 5 });
      await gateway.listen({ http: { port: 0, host: '127.0.0.1' }, handleSignals: false });
      url = `http://127.0.0.1:${gateway.addresses.http?.port}/mcp`;
    });
    after(async () => {
      await gateway.close();
      proxy.server.closeAllConnections();
      proxy.server.close();
      await killed(child);
    });

    test('modern subscribers share one upstream subscription per URI, released by the last', async () => {
      const clients = await Promise.all([1, 2, 3].map(() => connect(url, { protocol: 'modern' })));
      const streams = clients.map(() => new AbortController());
      await Promise.all(
        clients.map((client, i) =>
          client.listen({ resourceSubscriptions: URIS }, { signal: streams[i]!.signal }),
        ),
      );
      const held = () =>
        era === 'modern' ? proxy.count.listens : proxy.count.subscribes - proxy.count.unsubscribes;
      await until(() => held() === URIS.length, `${URIS.length} upstream subscriptions`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(held(), URIS.length, 'one per URI, not one per subscriber');
      streams[0]!.abort();
      streams[1]!.abort();
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(held(), URIS.length, 'kept while a subscriber remains');
      streams[2]!.abort();
      await until(() => held() === 0, 'every upstream subscription released');
      for (const client of clients) await client.close();
    });

    test('legacy subscribers (SDK 1.x) are shared and released when their sessions end', async () => {
      const held = () =>
        era === 'modern' ? proxy.count.listens : proxy.count.subscribes - proxy.count.unsubscribes;
      const clients: Sdk1Client[] = [];
      for (let i = 0; i < 3; i++) {
        const client = new Sdk1Client({ name: 'sdk1', version: '1.0.0' });
        await client.connect(new Sdk1Http(new URL(url)));
        for (const uri of URIS) await client.subscribeResource({ uri });
        clients.push(client);
      }
      await until(() => held() === URIS.length, `${URIS.length} upstream subscriptions`);
      await clients[0]!.unsubscribeResource({ uri: URIS[0]! });
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(held(), URIS.length);
      for (const client of clients) {
        await (client.transport as Sdk1Http).terminateSession();
        await client.close();
      }
      await until(() => held() === 0, 'every upstream subscription released');
    });

    test('past maxWatchedUris a subscription is refused with -32013, and nothing is opened', async () => {
      const client = await connect(url, { protocol: 'modern' });
      const many = [1, 2, 3, 4, 5, 6].map((id) => `up+item://${id}`);
      const stream = new AbortController();
      await assert.rejects(
        client.listen({ resourceSubscriptions: many }, { signal: stream.signal }),
        (error) => {
          assert.ok(error instanceof McpError);
          assert.equal(error.code, -32013);
          assert.match(error.message, /the mount "up" already watches 5 resource URIs.*maxWatchedUris/);
          return true;
        },
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      const held = era === 'modern' ? proxy.count.listens : proxy.count.subscribes - proxy.count.unsubscribes;
      assert.equal(held, 0, 'the refused request left no upstream subscription');
      stream.abort();
      await client.close();
    });
  });
}
