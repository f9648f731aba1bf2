/**
 * End to end with the official SDK v2 client (`@modelcontextprotocol/client` 2.x) pinned to the
 * stateless 2026-07-28 era, over Streamable HTTP and over stdio, against a weft server running as
 * a child process (test/e2e/modern-server.ts): what a modern client sees. The same behaviours are
 * asked of both transports; only how a request travels differs (headers and a closed stream over
 * HTTP, `_meta` and `notifications/cancelled` over stdio).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  Client,
  type FetchLike,
  type JSONRPCMessage,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { cpuSeconds } from '../support/sdk-stdio.js';
import { MODERN_SERVER, type ModernServerProcess, startModernServer } from './modern-server-process.js';

const PIN = { mode: { pin: '2026-07-28' } } as const;
const EXPECTED_TOOLS = [
  'compress',
  'echo',
  'fib',
  'hash_chain',
  'primes',
  'regex_search',
  'spin',
  'test_custom_headers',
  'test_trigger_prompt_change',
  'test_trigger_tool_change',
  'wait',
];
const PAGE_SIZE = 4; // modern-server.ts

const text = (result: unknown) => (result as { content?: { text?: string }[] }).content?.[0]?.text ?? '';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One modern client and what the test can see of its traffic. */
interface ModernConnection {
  client: Client;
  pid: number;
  /** Every request the client sent, by method, with its params (pages of tools/list included). */
  sent: { method: string; params: Record<string, unknown> }[];
  /** HTTP only: the headers of every POST, in order. */
  postHeaders: Headers[];
  close(): Promise<void>;
}

/** Records outgoing requests below the client, whatever the transport. */
function recordSends(
  transport: { send(message: JSONRPCMessage, ...rest: never[]): Promise<void> },
  into: ModernConnection['sent'],
): void {
  const send = transport.send.bind(transport);
  transport.send = (message, ...rest) => {
    if ('method' in message && 'id' in message) {
      into.push({ method: message.method, params: (message.params ?? {}) as Record<string, unknown> });
    }
    return send(message, ...rest);
  };
}

async function connectOverHttp(server: ModernServerProcess): Promise<ModernConnection> {
  const sent: ModernConnection['sent'] = [];
  const postHeaders: Headers[] = [];
  const fetchRecording: FetchLike = (url, init) => {
    if (init?.method === 'POST') postHeaders.push(new Headers(init.headers));
    return fetch(url, init);
  };
  const transport = new StreamableHTTPClientTransport(server.url, { fetch: fetchRecording });
  recordSends(transport, sent);
  const client = new Client({ name: 'weft-modern-test', version: '1.0.0' }, { versionNegotiation: PIN });
  await client.connect(transport);
  return { client, pid: server.pid, sent, postHeaders, close: () => client.close() };
}

async function connectOverStdio(): Promise<ModernConnection> {
  const sent: ModernConnection['sent'] = [];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MODERN_SERVER, '--stdio'],
    stderr: 'pipe',
  });
  recordSends(transport, sent);
  const client = new Client({ name: 'weft-modern-test', version: '1.0.0' }, { versionNegotiation: PIN });
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error('the server process did not start');
  return { client, pid, sent, postHeaders: [], close: () => client.close() };
}

for (const way of ['Streamable HTTP', 'stdio'] as const) {
  describe(`the SDK v2 client, pinned to 2026-07-28, over ${way}`, () => {
    let server: ModernServerProcess | undefined;
    let modern: ModernConnection;
    before(async () => {
      if (way === 'Streamable HTTP') {
        server = await startModernServer();
        modern = await connectOverHttp(server);
      } else modern = await connectOverStdio();
    });
    after(async () => {
      await modern.close();
      await server?.stop();
    });

    it('speaks the modern era: discovered, never initialized', () => {
      assert.equal(modern.client.getProtocolEra(), 'modern');
      assert.equal(modern.client.getNegotiatedProtocolVersion(), '2026-07-28');
      assert.deepEqual(modern.client.getServerVersion(), { name: 'weft-modern-e2e', version: '0.0.0' });
      assert.ok(modern.client.getDiscoverResult()?.supportedVersions.includes('2026-07-28'));
      // Over stdio the SDK probes with server/discover on a sibling process; the session never initializes.
      const methods = modern.sent.map(({ method }) => method);
      assert.ok(!methods.includes('initialize'), `sent: ${methods.join(', ')}`);
    });

    it('lists every tool in name order, across pages, with the cache hints of the era', async () => {
      const before = modern.sent.length;
      const { tools } = await modern.client.listTools(undefined, { cacheMode: 'refresh' });
      assert.deepEqual(
        tools.map((tool) => tool.name),
        EXPECTED_TOOLS,
      );
      const pages = modern.sent.slice(before).filter(({ method }) => method === 'tools/list');
      assert.equal(pages.length, Math.ceil(EXPECTED_TOOLS.length / PAGE_SIZE));
      assert.equal(pages[0]!.params.cursor, undefined);
      for (const page of pages.slice(1)) assert.equal(typeof page.params.cursor, 'string');
      const onePage = await modern.client.listTools({ cursor: pages[1]!.params.cursor as string });
      assert.deepEqual(
        onePage.tools.map((tool) => tool.name),
        EXPECTED_TOOLS.slice(PAGE_SIZE, 2 * PAGE_SIZE),
      );
      assert.equal(onePage.cacheScope === 'public' || onePage.cacheScope === 'private', true);
      const ttlMs = Number(onePage.ttlMs);
      assert.ok(Number.isInteger(ttlMs) && ttlMs >= 0, `ttlMs ${onePage.ttlMs}`);
    });

    it('calls echo and fib, and each result names the server', async () => {
      const echo = await modern.client.callTool({ name: 'echo', arguments: { text: 'über 世界' } });
      assert.equal(text(echo), 'über 世界');
      const fib = await modern.client.callTool({ name: 'fib', arguments: { n: 20 } });
      assert.deepEqual(fib.structuredContent, { n: 20, value: 6765 });
      assert.deepEqual(fib._meta?.['io.modelcontextprotocol/serverInfo'], {
        name: 'weft-modern-e2e',
        version: '0.0.0',
      });
    });

    it('delivers progress from a pool thread while the call runs, increasing', async () => {
      const updates: number[] = [];
      const result = await modern.client.callTool(
        { name: 'hash_chain', arguments: { text: 'weft', rounds: 200_000 } },
        { onprogress: (progress) => updates.push(progress.progress) },
      );
      assert.equal(result.isError, undefined);
      assert.ok(updates.length >= 2, `only ${updates.length} progress updates`);
      assert.deepEqual(
        updates,
        [...updates].sort((a, b) => a - b),
      );
    });

    it('publishes x-mcp-header verbatim, and the client mirrors the arguments it names', async () => {
      const { tools } = await modern.client.listTools();
      const headerTool = tools.find((tool) => tool.name === 'test_custom_headers');
      const properties = headerTool?.inputSchema.properties as Record<string, Record<string, unknown>>;
      assert.equal(properties.region?.['x-mcp-header'], 'Region');
      assert.equal(properties.query?.['x-mcp-header'], undefined);
      const posts = modern.postHeaders.length;
      const result = await modern.client.callTool({
        name: 'test_custom_headers',
        arguments: { region: 'Hello, 世界', priority: 7, query: 'plain' },
      });
      assert.equal(text(result), 'region=Hello, 世界 priority=7 verbose=(absent) query=plain');
      if (way === 'Streamable HTTP') {
        const call = modern.postHeaders
          .slice(posts)
          .find((headers) => headers.get('mcp-method') === 'tools/call');
        assert.ok(call, 'the call was POSTed');
        assert.equal(call.get('mcp-name'), 'test_custom_headers');
        assert.equal(
          call.get('mcp-param-region'),
          `=?base64?${Buffer.from('Hello, 世界').toString('base64')}?=`,
        );
        assert.equal(call.get('mcp-param-priority'), '7');
        assert.equal(call.get('mcp-param-verbose'), null);
        assert.equal(call.get('mcp-param-query'), null);
        // The mirroring matters: the same call with a header that disagrees with the body is refused.
        const forged = new Headers(call);
        forged.set('mcp-param-region', 'Elsewhere');
        const refused = await fetch(server!.url, {
          method: 'POST',
          headers: forged,
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 'forged',
            method: 'tools/call',
            params: {
              name: 'test_custom_headers',
              arguments: { region: 'Hello, 世界', priority: 7, query: 'plain' },
              _meta: {
                'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                'io.modelcontextprotocol/clientCapabilities': {},
              },
            },
          }),
        });
        assert.equal(refused.status, 400);
        const body = (await refused.json()) as { id?: unknown; error?: { code?: number } };
        assert.equal(body.error?.code, -32020);
        assert.equal(body.id, 'forged');
      }
    });

    it('hears tools/list_changed on a listen stream, tagged with its subscription', async () => {
      const heard: { params?: { _meta?: Record<string, unknown> } }[] = [];
      modern.client.setNotificationHandler('notifications/tools/list_changed', (notification) => {
        heard.push(notification as (typeof heard)[number]);
      });
      const subscription = await modern.client.listen({ toolsListChanged: true });
      try {
        assert.deepEqual(subscription.honoredFilter, { toolsListChanged: true });
        await modern.client.callTool({ name: 'test_trigger_tool_change', arguments: {} });
        const deadline = Date.now() + 3_000;
        while (heard.length === 0 && Date.now() < deadline) await sleep(20);
        assert.equal(heard.length, 1, 'one change, one notification');
        assert.equal(typeof heard[0]!.params?._meta?.['io.modelcontextprotocol/subscriptionId'], 'string');
        const { tools } = await modern.client.listTools(undefined, { cacheMode: 'refresh' });
        assert.ok(tools.some((tool) => tool.name === 'test_tool_toggled_by_trigger'));
      } finally {
        await subscription.close();
        await modern.client.callTool({ name: 'test_trigger_tool_change', arguments: {} }); // toggle back
      }
    });

    it('an aborted spin {ms: 600000} leaves the server idle within a second; both threads serve again', async () => {
      const controller = new AbortController();
      const call = modern.client
        .callTool({ name: 'spin', arguments: { ms: 600_000 } }, { signal: controller.signal })
        .catch((error: unknown) => error);
      await sleep(400);
      const cpuWhileSpinning = await cpuSeconds(modern.pid);
      await sleep(300);
      assert.ok((await cpuSeconds(modern.pid)) - cpuWhileSpinning >= 0.05, 'the spin was running');
      controller.abort('the user gave up');
      assert.ok((await call) instanceof Error);
      await sleep(1_000); // the promise: idle within a second of the abort
      const cpuBefore = await cpuSeconds(modern.pid);
      await sleep(1_000);
      const cpuUsed = (await cpuSeconds(modern.pid)) - cpuBefore;
      assert.ok(cpuUsed <= 0.1, `the server used ${cpuUsed.toFixed(2)} s of CPU in the second after`);
      // Two 1 s spins: side by side on two free threads they take ~1 s, one after the other >= 2 s.
      const started = Date.now();
      const both = await Promise.all([
        modern.client.callTool({ name: 'spin', arguments: { ms: 1_000 } }),
        modern.client.callTool({ name: 'spin', arguments: { ms: 1_000 } }),
      ]);
      for (const result of both) assert.match(text(result), /spun 1000 ms/);
      const elapsed = Date.now() - started;
      assert.ok(elapsed < 1_800, `two spins took ${elapsed} ms: they did not run on two free threads`);
    });
  });
}
