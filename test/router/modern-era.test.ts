/**
 * The 2026-07-28 era through the router, in process: the envelope and its errors, server/discover,
 * resultType and serverInfo on every result, cache hints on the six cacheable ones, the methods
 * the era removed, resource-not-found, per-request log levels and capabilities, and that a legacy
 * session on the same server sees exactly what it saw before.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { McpServer } from '../../lib/index.js';
import { InProcessClient, type Reply } from '../support/in-process-client.js';
import { buildModernServer, envelope, MODERN } from './modern-fixtures.js';

const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
const server = buildModernServer();
let client: InProcessClient;
let legacy: InProcessClient;

before(async () => {
  client = new InProcessClient(server);
  legacy = new InProcessClient(server);
  await legacy.initialize('2025-11-25', { elicitation: {} });
});
after(() => server.close());

const modern = (method: string, params: Record<string, unknown> = {}, meta?: Record<string, unknown>) =>
  client.request(method, { ...params, _meta: envelope(meta) });

function assertModernResult(reply: Reply): Record<string, unknown> {
  assert.equal(reply.error, undefined, `expected a result, got ${JSON.stringify(reply.error)}`);
  const result = reply.result as Record<string, unknown>;
  assert.equal(result.resultType, 'complete');
  assert.deepEqual((result._meta as Record<string, unknown>)[SERVER_INFO], {
    name: 'weft-modern',
    version: '1.2.3',
  });
  return result;
}

async function allPages(
  method: string,
  key: string,
): Promise<{ items: { name?: string }[]; pages: Reply[] }> {
  const pages: Reply[] = [];
  let cursor: unknown;
  do {
    const page = await modern(method, cursor === undefined ? {} : { cursor });
    pages.push(page);
    cursor = page.result?.nextCursor;
  } while (cursor !== undefined);
  return { items: pages.flatMap((page) => page.result?.[key] as { name?: string }[]), pages };
}

describe('server/discover', () => {
  it('names the modern versions, the capabilities, the instructions, cache hints and serverInfo', async () => {
    const result = assertModernResult(await modern('server/discover'));
    assert.deepEqual(result.supportedVersions, [MODERN]);
    assert.deepEqual(result.capabilities, {
      tools: { listChanged: true },
      logging: {},
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
    });
    assert.equal(result.instructions, 'Use echo to test.');
    assert.equal(result.ttlMs, 0);
    assert.equal(result.cacheScope, 'private');
  });
});

describe('the envelope', () => {
  it('refuses a modern request without _meta, or without its required keys, with -32602 and the id', async () => {
    const bare = await client.request('server/discover', {}, 'no-meta');
    assert.equal(bare.id, 'no-meta');
    assert.equal(bare.error?.code, -32602);
    assert.match(bare.error!.message, /_meta/);
    const noCapabilities = await client.request('tools/list', {
      _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN },
    });
    assert.equal(noCapabilities.error?.code, -32602);
    assert.match(noCapabilities.error!.message, /clientCapabilities/);
  });

  it('refuses an unsupported version with -32022 naming the supported ones and the one asked for', async () => {
    const reply = await modern('tools/list', {}, { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' });
    assert.equal(reply.error?.code, -32022);
    assert.deepEqual((reply.error as { data?: unknown }).data, {
      supported: [MODERN],
      requested: '2099-01-01',
    });
  });

  it('refuses a logLevel that names no level with -32602', async () => {
    const reply = await modern(
      'tools/call',
      { name: 'echo', arguments: { text: 'x' } },
      {
        'io.modelcontextprotocol/logLevel': 'verbose',
      },
    );
    assert.equal(reply.error?.code, -32602);
    assert.match(reply.error!.message, /debug, info/);
  });

  it('serves a request without clientInfo', async () => {
    const reply = await client.request('tools/call', {
      name: 'echo',
      arguments: { text: 'anonymous' },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    });
    assert.equal(
      assertModernResult(reply).content?.toString(),
      [{ type: 'text', text: 'anonymous' }].toString(),
    );
  });
});

describe('methods of the era', () => {
  for (const method of [
    'initialize',
    'ping',
    'logging/setLevel',
    'resources/subscribe',
    'resources/unsubscribe',
    'tasks/result',
    'tasks/list',
    'roots/list',
    'no/such/method',
  ]) {
    it(`answers ${method} with -32601 in a modern request`, async () => {
      const reply = await modern(method, { uri: 'app://config', level: 'info', protocolVersion: MODERN });
      assert.equal(reply.error?.code, -32601);
    });
  }

  it('keeps the legacy era whole: ping, setLevel and subscribe still answer a legacy session', async () => {
    assert.deepEqual((await legacy.request('ping')).result, {});
    assert.deepEqual((await legacy.request('logging/setLevel', { level: 'debug' })).result, {});
    assert.deepEqual((await legacy.request('resources/subscribe', { uri: 'app://config' })).result, {});
    assert.equal((await legacy.request('subscriptions/listen', { notifications: {} })).error?.code, -32601);
  });

  it('has no prompts/*, resources/* or completion/complete on a server that offers none', async () => {
    const bare = new McpServer({ name: 'bare', version: '1' });
    bare.tool({ name: 'echo', inputSchema: { type: 'object' }, handler: () => 'e' });
    const peer = new InProcessClient(bare);
    for (const method of ['prompts/list', 'resources/list', 'resources/read', 'completion/complete']) {
      const reply = await peer.request(method, { _meta: envelope(), uri: 'app://x' });
      assert.equal(reply.error?.code, -32601, method);
      assert.match(reply.error!.message, /does not offer/);
    }
    const discover = await peer.request('server/discover', { _meta: envelope() });
    assert.deepEqual(discover.result?.capabilities, { tools: { listChanged: true }, logging: {} });
    // The legacy era keeps answering these as it always did.
    assert.deepEqual((await peer.request('prompts/list')).result, { prompts: [] });
    await bare.close();
  });
});

describe('results', () => {
  it('lists the same tools as the legacy era, in name order, every page with the same cache hints', async () => {
    const { items, pages } = await allPages('tools/list', 'tools');
    const legacyTools: object[] = [];
    let cursor: unknown;
    do {
      const page = await legacy.request('tools/list', cursor === undefined ? {} : { cursor });
      assert.equal(page.result?.resultType, undefined, 'legacy results carry no resultType');
      assert.equal(page.result?.ttlMs, undefined);
      legacyTools.push(...((page.result?.tools ?? []) as object[]));
      cursor = page.result?.nextCursor;
    } while (cursor !== undefined);
    assert.deepEqual(items, legacyTools);
    const names = items.map((tool) => tool.name!);
    assert.deepEqual(names, [...names].sort());
    assert.ok(pages.length > 1);
    for (const page of pages) {
      const result = assertModernResult(page);
      assert.equal(result.ttlMs, 0);
      assert.equal(result.cacheScope, 'private');
    }
  });

  it('answers tools/call like the legacy era, plus resultType and serverInfo', async () => {
    const modernReply = assertModernResult(
      await modern('tools/call', { name: 'echo', arguments: { text: 'hi' } }),
    );
    const legacyReply = await legacy.callTool('echo', { text: 'hi' });
    assert.deepEqual(legacyReply.result, { content: [{ type: 'text', text: 'hi' }] });
    const { resultType, _meta, ...rest } = modernReply;
    assert.deepEqual(rest, legacyReply.result);
    assert.equal(modernReply.ttlMs, undefined, 'tools/call is not cacheable');
    const fib = assertModernResult(await modern('tools/call', { name: 'fib', arguments: { n: 20 } }));
    assert.match(JSON.stringify(fib.content), /6765/);
    const invalid = assertModernResult(await modern('tools/call', { name: 'fib', arguments: { n: 'x' } }));
    assert.equal(invalid.isError, true);
    assert.equal((await modern('tools/call', { name: 'nope', arguments: {} })).error?.code, -32602);
  });

  it('puts cache hints on the six cacheable results and on no other', async () => {
    const cacheable = [
      await modern('server/discover'),
      await modern('tools/list'),
      await modern('prompts/list'),
      await modern('resources/list'),
      await modern('resources/templates/list'),
      await modern('resources/read', { uri: 'app://config' }),
    ];
    for (const reply of cacheable) {
      const result = assertModernResult(reply);
      assert.equal(typeof result.ttlMs, 'number');
      assert.equal(result.cacheScope, 'private');
    }
    const others = [
      await modern('prompts/get', { name: 'greet', arguments: { who: 'Ada' } }),
      await modern('completion/complete', {
        ref: { type: 'ref/resource', uri: 'app://users/{id}' },
        argument: { name: 'id', value: 'a' },
      }),
      await modern('tools/call', { name: 'echo', arguments: { text: 'x' } }),
    ];
    for (const reply of others) {
      const result = assertModernResult(reply);
      assert.equal('ttlMs' in result, false);
      assert.equal('cacheScope' in result, false);
    }
    assert.deepEqual((others[1]!.result as { completion: unknown }).completion, { values: ['ada', 'alan'] });
    const read = cacheable[5]!.result as { contents: unknown };
    assert.deepEqual(read.contents, [{ uri: 'app://config', mimeType: 'application/json', text: '{"a":1}' }]);
  });

  it('takes the cache hints from the server options, per method where given', async () => {
    const cached = buildModernServer({
      cache: { ttlMs: 5_000, scope: 'public', methods: { 'tools/list': { ttlMs: 60_000 } } },
    });
    const peer = new InProcessClient(cached);
    const list = await peer.request('tools/list', { _meta: envelope() });
    assert.equal(list.result?.ttlMs, 60_000);
    assert.equal(list.result?.cacheScope, 'public');
    const discover = await peer.request('server/discover', { _meta: envelope() });
    assert.equal(discover.result?.ttlMs, 5_000);
    await cached.close();
  });

  it('refuses malformed cache options when the server is built, saying what to write', () => {
    const build = (cache: unknown) => () => new McpServer({ name: 'x', version: '1', cache: cache as never });
    assert.throws(build({ ttlMs: -1 }), /cache\.ttlMs must be a whole number/);
    assert.throws(build({ ttlMs: 1.5 }), /whole number/);
    assert.throws(build({ scope: 'shared' }), /'public' or 'private'/);
    assert.throws(build({ ttl: 1 }), /unknown option "ttl"/);
    assert.throws(build({ methods: { 'tools/call': { ttlMs: 1 } } }), /only these results carry cache hints/);
  });

  it('answers a missing resource with -32602 and data.uri (the legacy era keeps -32002)', async () => {
    const modernReply = await modern('resources/read', { uri: 'app://missing' });
    assert.equal(modernReply.error?.code, -32602);
    assert.deepEqual((modernReply.error as { data?: unknown }).data, { uri: 'app://missing' });
    const legacyReply = await legacy.request('resources/read', { uri: 'app://missing' });
    assert.equal(legacyReply.error?.code, -32002);
  });
});

describe('logs, progress and capabilities, per request', () => {
  it('sends no log message for a request without logLevel, and only those at or above it otherwise', async () => {
    const silent = await modern('tools/call', { name: 'logs', arguments: {} }, {});
    assertModernResult(silent);
    const logLines = () =>
      client.received.filter(
        (message) => 'method' in message && message.method === 'notifications/message',
      ) as unknown as { params: { level: string; data: unknown } }[];
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(logLines().length, 0);
    await modern(
      'tools/call',
      { name: 'logs', arguments: {} },
      { 'io.modelcontextprotocol/logLevel': 'info' },
    );
    assert.deepEqual(
      logLines().map((line) => [line.params.level, line.params.data]),
      [['warning', 'a warning line']],
    );
    // Not remembered: the next request without logLevel is silent again.
    await modern('tools/call', { name: 'logs', arguments: {} });
    assert.equal(logLines().length, 1);
  });

  it('reports progress to a modern request that sent a progressToken, with no log lines unasked', async () => {
    const before = client.received.length;
    const reply = await modern(
      'tools/call',
      { name: 'progress', arguments: { steps: 3 } },
      { progressToken: 'p1' },
    );
    assertModernResult(reply);
    const after = client.received.slice(before);
    const progress = after.filter(
      (message) => 'method' in message && message.method === 'notifications/progress',
    );
    assert.deepEqual(
      progress.map((message) => (message as unknown as { params: { progress: number } }).params.progress),
      [1, 2, 3],
    );
    assert.equal(
      (progress[0] as unknown as { params: { progressToken: string } }).params.progressToken,
      'p1',
    );
    assert.equal(
      after.some((message) => 'method' in message && message.method === 'notifications/message'),
      false,
    );
  });

  it('never sends a server-to-client request for a modern request: ctx.elicit asks in a round, inline and blocking', async () => {
    const before = client.received.length;
    for (const name of ['ask', 'ask_blocking']) {
      const reply = await modern(
        'tools/call',
        { name, arguments: {} },
        {
          'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
        },
      );
      assert.equal(reply.error, undefined, `expected a result, got ${JSON.stringify(reply.error)}`);
      const result = reply.result as Record<string, unknown>;
      assert.equal(result.resultType, 'input_required');
      const requests = Object.values(result.inputRequests as Record<string, { method: string }>);
      assert.deepEqual(
        requests.map(({ method }) => method),
        ['elicitation/create'],
      );
      assert.equal(typeof result.requestState, 'string');
    }
    const sentRequests = client.received
      .slice(before)
      .filter((message) => 'method' in message && 'id' in message);
    assert.deepEqual(sentRequests, []);
  });

  it('takes capabilities from each request alone, never from an earlier one or from the session', async () => {
    // The legacy session on the same server declared elicitation; a modern request that does not
    // is refused for the missing capability, not for the era.
    const undeclared = assertModernResult(await modern('tools/call', { name: 'ask', arguments: {} }));
    assert.match(JSON.stringify(undeclared.content), /did not declare the \\"elicitation\\" capability/);
    await modern(
      'tools/call',
      { name: 'ask', arguments: {} },
      {
        'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
      },
    );
    const again = assertModernResult(await modern('tools/call', { name: 'ask', arguments: {} }));
    assert.match(JSON.stringify(again.content), /did not declare/);
  });

  it("runs a handler's own ctx.tools().call under the scope of the request that made it", async () => {
    const declared = assertModernResult(
      await modern(
        'tools/call',
        { name: 'ask_through', arguments: {} },
        {
          'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
        },
      ),
    );
    // The inner call saw the outer request's capabilities and era: it asked in a round, which an
    // inner call cannot relay, and the calling handler is told so.
    assert.match(
      JSON.stringify(declared.content),
      /asks the client for input, which a call through ctx\.tools\(\)\.call cannot relay/,
    );
    const undeclared = assertModernResult(await modern('tools/call', { name: 'ask_through', arguments: {} }));
    assert.match(JSON.stringify(undeclared.content), /did not declare/);
  });

  it('lets a legacy session on the same server still ask its client', async () => {
    const call = legacy.callTool('ask', {});
    const asked = (await legacy.waitFor(
      (message) => 'method' in message && message.method === 'elicitation/create',
    )) as { id: string };
    legacy.send({ jsonrpc: '2.0', id: asked.id, result: { action: 'decline' } });
    assert.deepEqual((await call).result?.content, [{ type: 'text', text: 'answered: decline' }]);
  });
});
