/**
 * Middleware (`server.use`): the onion's order, short-circuits, changed params and results, errors,
 * timing, in both eras and for every kind of request; and the three built-ins.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import {
  ErrorCode,
  McpServer,
  type MiddlewareContext,
  makePrincipal,
  NO_ANSWER,
  ProtocolError,
  requestLogging,
  responseCache,
  resultSizeLimit,
} from '../../lib/index.js';
import { InProcessClient } from '../support/in-process-client.js';
import { envelope } from './modern-fixtures.js';

const servers: McpServer[] = [];
after(() => Promise.all(servers.map((server) => server.close())));

/** A server with a tool, a prompt and a resource, so every kind of request has something to hit. */
function build(options: Partial<ConstructorParameters<typeof McpServer>[0]> = {}): McpServer {
  const server = new McpServer({ name: 'mw', version: '1', pool: { maxThreads: 1 }, ...options })
    .tool({
      name: 'echo',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      handler: ({ text }) => text,
    })
    .tool({
      name: 'big',
      inputSchema: { type: 'object', properties: { size: { type: 'integer' } }, required: ['size'] },
      handler: ({ size }) => 'x'.repeat(size),
    })
    .tool({
      name: 'slow',
      inputSchema: { type: 'object' },
      handler: (_args, ctx) =>
        new Promise((resolve) => {
          const timer = setTimeout(() => resolve('late'), 10_000);
          ctx.signal.addEventListener('abort', () => clearTimeout(timer));
        }),
    })
    .prompt({ name: 'greet', get: () => 'hello' })
    .resource({ uri: 'mem://a', name: 'a', read: () => ({ text: 'A' }) });
  servers.push(server);
  return server;
}

const text = (reply: { result?: { content?: { text?: string }[] } }) => reply.result?.content?.[0]?.text;

/** The text of item `index` of a result's `content` or `contents`. */
const item = (reply: { result?: Record<string, unknown> }, key: string, index: number) =>
  (reply.result?.[key] as { text?: string }[] | undefined)?.[index]?.text;

/** A modern request's params: the envelope plus `extra`. */
const modern = (extra: Record<string, unknown> = {}) => ({ _meta: envelope(), ...extra });

describe('the onion', () => {
  it('runs middlewares in the order installed, onRequest outside the kind hook, both eras', async () => {
    const order: string[] = [];
    const server = build()
      .use(async (ctx, next) => {
        order.push(`a>${ctx.method}`);
        const result = await next();
        order.push(`a<${ctx.method}`);
        return result;
      })
      .use({
        onRequest: (ctx, next) => {
          order.push(`b.request>${ctx.era}`);
          return next();
        },
        onCallTool: (_ctx, next) => {
          order.push('b.call');
          return next();
        },
      });
    const client = new InProcessClient(server);
    await client.initialize();
    order.length = 0;
    assert.equal(text(await client.callTool('echo', { text: 'hi' })), 'hi');
    assert.deepEqual(order, ['a>tools/call', 'b.request>legacy', 'b.call', 'a<tools/call']);
    order.length = 0;
    await client.request('tools/list');
    assert.deepEqual(order, ['a>tools/list', 'b.request>legacy', 'a<tools/list']);
    order.length = 0;
    const reply = await client.request('tools/call', modern({ name: 'echo', arguments: { text: 'm' } }));
    assert.equal(text(reply), 'm');
    assert.equal(reply.result?.resultType, 'complete');
    assert.deepEqual(order, ['a>tools/call', 'b.request>modern', 'b.call', 'a<tools/call']);
  });

  it('lets a hook of each kind answer on its own, in both eras', async () => {
    const seen: string[] = [];
    const server = build().use({
      onCallTool: () => ({ content: [{ type: 'text', text: 'from middleware' }] }),
      onList: (ctx) => {
        seen.push(ctx.method);
        return ctx.method === 'tools/list'
          ? { tools: [] }
          : ctx.method === 'prompts/list'
            ? { prompts: [] }
            : { resources: [] };
      },
      onReadResource: (ctx) => ({ contents: [{ uri: ctx.params.uri, text: 'cached text' }] }),
      onGetPrompt: () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'short' } }] }),
    });
    const client = new InProcessClient(server);
    await client.initialize();
    for (const params of [{}, modern()]) {
      const call = await client.request('tools/call', { ...params, name: 'echo', arguments: { text: 'x' } });
      assert.equal(text(call), 'from middleware');
      assert.deepEqual((await client.request('tools/list', params)).result?.tools, []);
      assert.deepEqual((await client.request('prompts/list', params)).result?.prompts, []);
      assert.deepEqual((await client.request('resources/list', params)).result?.resources, []);
      const read = await client.request('resources/read', { ...params, uri: 'mem://a' });
      assert.equal(item(read, 'contents', 0), 'cached text');
      const prompt = await client.request('prompts/get', { ...params, name: 'greet' });
      assert.equal((prompt.result?.messages as unknown[] | undefined)?.length, 1);
    }
    const modernList = await client.request('tools/list', modern());
    assert.equal(
      modernList.result?.resultType,
      'complete',
      'a short-circuit answer is still dressed for its era',
    );
    assert.equal(typeof modernList.result?.ttlMs, 'number');
  });

  it('changes params before dispatch and the result after it', async () => {
    const server = build().use({
      onCallTool: async (ctx, next) => {
        ctx.params = {
          ...ctx.params,
          arguments: { text: `${(ctx.params.arguments as { text: string }).text}!` },
        };
        const result = (await next()) as { content: { text: string }[] };
        result.content.push({ text: 'appended' } as never);
        return result;
      },
    });
    const client = new InProcessClient(server);
    await client.initialize();
    for (const params of [{}, modern()]) {
      const reply = await client.request('tools/call', {
        ...params,
        name: 'echo',
        arguments: { text: 'hey' },
      });
      assert.equal(text(reply), 'hey!');
      assert.equal(item(reply, 'content', 1), 'appended');
    }
  });

  it('sends a ProtocolError thrown by a hook as that JSON-RPC error; any other throw as -32603', async () => {
    const logged: string[] = [];
    const server = build({ logError: (line) => logged.push(line) }).use({
      onCallTool: (ctx) => {
        if ((ctx.params.arguments as { text: string }).text === 'deny') {
          throw new ProtocolError(ErrorCode.InvalidParams, 'denied by policy', { why: 'test' });
        }
        throw new Error('a bug in a middleware');
      },
    });
    const client = new InProcessClient(server);
    await client.initialize();
    for (const params of [{}, modern()]) {
      const denied = await client.request('tools/call', {
        ...params,
        name: 'echo',
        arguments: { text: 'deny' },
      });
      assert.equal(denied.error?.code, ErrorCode.InvalidParams);
      assert.equal(denied.error?.message, 'denied by policy');
      const bug = await client.request('tools/call', {
        ...params,
        name: 'echo',
        arguments: { text: 'other' },
      });
      assert.equal(bug.error?.code, ErrorCode.InternalError);
    }
    assert.ok(logged.some((line) => line.includes('a bug in a middleware')));
  });

  it('times a request and sees its era, version, principal and method', async () => {
    const contexts: MiddlewareContext[] = [];
    const durations: number[] = [];
    const server = build().use(async (ctx, next) => {
      contexts.push(ctx);
      const result = await next();
      durations.push(ctx.elapsedMs());
      return result;
    });
    server.tool({
      name: 'nap',
      inputSchema: { type: 'object' },
      handler: () => new Promise((resolve) => setTimeout(() => resolve('rested'), 60)),
    });
    const alice = makePrincipal({ subject: 'alice', issuer: 'https://issuer.example' });
    const client = new InProcessClient(server, alice);
    await client.initialize();
    await client.callTool('nap', {});
    await client.request('tools/call', modern({ name: 'nap', arguments: {} }));
    const calls = contexts.filter((ctx) => ctx.method === 'tools/call');
    assert.deepEqual(
      calls.map((ctx) => [ctx.era, ctx.version, ctx.principal?.subject]),
      [
        ['legacy', '2025-11-25', 'alice'],
        ['modern', '2026-07-28', 'alice'],
      ],
    );
    assert.ok(
      durations.slice(-2).every((ms) => ms >= 50),
      `durations: ${durations}`,
    );
    assert.ok(calls.every((ctx) => Math.abs(ctx.startedAt - Date.now()) < 60_000));
  });

  it('wraps notifications from the client, and may drop one', async () => {
    const seen: string[] = [];
    const server = build().use({
      onNotification: (ctx, next) => {
        seen.push(ctx.method);
        // Dropping the cancel: the call it names goes on to its end.
        return ctx.method === 'notifications/cancelled' ? undefined : next();
      },
    });
    const client = new InProcessClient(server);
    await client.initialize();
    const call = client.request('tools/call', { name: 'echo', arguments: { text: 'kept' } }, 'c1');
    client.notify('notifications/cancelled', { requestId: 'c1' });
    assert.equal(text(await call), 'kept');
    assert.deepEqual(seen, ['notifications/initialized', 'notifications/cancelled']);
  });

  it('resolves next() with NO_ANSWER for a call the client cancelled', async () => {
    const results: unknown[] = [];
    const server = build().use({
      onCallTool: async (_ctx, next) => {
        const result = await next();
        results.push(result);
        return result;
      },
    });
    const client = new InProcessClient(server);
    await client.initialize();
    void client.request('tools/call', { name: 'slow', arguments: {} }, 's1');
    await new Promise((resolve) => setTimeout(resolve, 50));
    client.notify('notifications/cancelled', { requestId: 's1' });
    const deadline = Date.now() + 5_000;
    while (results.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(results, [NO_ANSWER]);
    assert.equal(client.received.filter((m) => 'id' in m && m.id === 's1').length, 0);
  });

  it('refuses what is not a middleware, naming the hooks', () => {
    const server = build();
    assert.throws(
      () => server.use({ onCalTool: () => undefined } as never),
      /unknown middleware hook "onCalTool"/,
    );
    assert.throws(() => server.use(42 as never), /a middleware is a function/);
  });
});

describe('requestLogging', () => {
  it('writes one JSON line per request, with its outcome', async () => {
    const lines: string[] = [];
    const server = build().use(requestLogging({ logger: (line) => lines.push(line) }));
    const client = new InProcessClient(
      server,
      makePrincipal({ subject: 'bob', claims: { secret: 's3cr3t' } }),
    );
    await client.initialize();
    lines.length = 0;
    await client.callTool('echo', { text: 'a' });
    await client.callTool('nope', {});
    await client.request('tools/list', modern());
    const entries = lines.map((line) => JSON.parse(line));
    assert.equal(lines.length, 3);
    assert.deepEqual(
      entries.map((e) => [e.method, e.era, e.name, e.outcome, e.errorCode, e.principal?.subject]),
      [
        ['tools/call', 'legacy', 'echo', 'ok', undefined, 'bob'],
        ['tools/call', 'legacy', 'nope', 'error', ErrorCode.InvalidParams, 'bob'],
        ['tools/list', 'modern', undefined, 'ok', undefined, 'bob'],
      ],
    );
    assert.ok(entries.every((e) => typeof e.durationMs === 'number' && !Number.isNaN(Date.parse(e.time))));
    assert.ok(!lines.some((line) => line.includes('s3cr3t')), 'claims never reach the log');
  });
});

describe('responseCache', () => {
  const listings = (server: McpServer) => {
    let count = 0;
    server.use({
      onList: async (_ctx, next) => {
        count++;
        return next();
      },
    });
    return () => count;
  };

  it('serves a repeated tools/list from cache within ttlMs, and fetches again after', async () => {
    let clock = 1_000;
    const server = build({ cache: { methods: { 'tools/list': { ttlMs: 500, scope: 'public' } } } });
    server.use(responseCache({ now: () => clock }));
    const reached = listings(server);
    const client = new InProcessClient(server);
    await client.initialize();
    const first = await client.request('tools/list', modern());
    const second = await client.request('tools/list', modern());
    assert.equal(reached(), 1, 'the second listing came from the cache');
    assert.deepEqual(second.result?.tools, first.result?.tools);
    assert.equal(second.result?.ttlMs, 500);
    clock += 501;
    await client.request('tools/list', modern());
    assert.equal(reached(), 2, 'past ttlMs the listing is fetched again');
    await client.request('tools/list');
    assert.equal(reached(), 3, 'the legacy era has its own entry');
  });

  it('never serves a private answer to another principal', async () => {
    const server = build({ cache: { ttlMs: 60_000, scope: 'private' } });
    server.use(responseCache());
    const reached = listings(server);
    const alice = new InProcessClient(server, makePrincipal({ subject: 'alice', issuer: 'i' }));
    const alice2 = new InProcessClient(server, makePrincipal({ subject: 'alice', issuer: 'i' }));
    const mallory = new InProcessClient(server, makePrincipal({ subject: 'alice', issuer: 'other-issuer' }));
    await alice.request('tools/list', modern());
    await alice2.request('tools/list', modern());
    assert.equal(reached(), 1, 'the same principal on another connection shares its entry');
    await mallory.request('tools/list', modern());
    assert.equal(reached(), 2, 'a different principal gets its own answer');
  });

  it('shares a public answer; keeps nothing with ttlMs 0; caches resources/read but not its errors', async () => {
    const server = build({
      cache: { ttlMs: 60_000, scope: 'public', methods: { 'prompts/list': { ttlMs: 0 } } },
    });
    let reads = 0;
    server.resource({
      uri: 'mem://counted',
      name: 'counted',
      read: () => ({ text: `read ${++reads}` }),
    });
    server.use(responseCache());
    const reached = listings(server);
    const one = new InProcessClient(server, makePrincipal({ subject: 'one' }));
    const two = new InProcessClient(server, makePrincipal({ subject: 'two' }));
    await one.request('tools/list', modern());
    await two.request('tools/list', modern());
    assert.equal(reached(), 1);
    await one.request('prompts/list', modern());
    await one.request('prompts/list', modern());
    assert.equal(reached(), 3, 'ttlMs 0: never cached');
    const first = await one.request('resources/read', modern({ uri: 'mem://counted' }));
    const again = await two.request('resources/read', modern({ uri: 'mem://counted' }));
    assert.equal(item(again, 'contents', 0), 'read 1');
    assert.deepEqual(again.result?.contents, first.result?.contents);
    const missing = await one.request('resources/read', modern({ uri: 'mem://none' }));
    assert.ok(missing.error);
    server.resource({ uri: 'mem://none', name: 'late', read: () => ({ text: 'now here' }) });
    const found = await one.request('resources/read', modern({ uri: 'mem://none' }));
    assert.equal(item(found, 'contents', 0), 'now here');
  });
});

describe('resultSizeLimit', () => {
  it('replaces a result over its tool limit with an isError result that says so', async () => {
    const server = build().use(resultSizeLimit({ maxBytes: 10_000, tools: { big: 200 } }));
    const client = new InProcessClient(server);
    await client.initialize();
    const small = await client.callTool('big', { size: 50 });
    assert.equal(text(small)?.length, 50);
    for (const params of [{}, modern()]) {
      const large = await client.request('tools/call', { ...params, name: 'big', arguments: { size: 500 } });
      assert.equal(large.result?.isError, true);
      assert.match(text(large) ?? '', /Tool "big" returned \d+ bytes, more than its limit of 200 bytes/);
    }
    const echo = await client.callTool('echo', { text: 'y'.repeat(5_000) });
    assert.equal(echo.result?.isError, undefined, 'other tools are under maxBytes');
    assert.throws(() => resultSizeLimit({ tools: { big: -1 } }), /whole number of bytes/);
    assert.throws(() => resultSizeLimit({ maxbytes: 1 } as never), /unknown option "maxbytes"/);
  });
});
