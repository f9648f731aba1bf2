/**
 * Modern (2026-07-28) Streamable HTTP, seen on the wire with plain fetch: every header rule and the
 * status it answers with, in the validation order clients rely on, and the shapes of the answers
 * (JSON, request-scoped SSE without ids, 202 for notifications).
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { McpServer } from '../../lib/index.js';
import { envelope, MODERN_VERSION, ModernHttpPeer, sseMessages, type Wire } from './modern-http-peer.js';

function headerServer(): McpServer {
  return new McpServer({ name: 'modern-headers', version: '1.2.3' })
    .tool({
      name: 'route',
      description: 'Answers with the region it was routed to; its arguments are mirrored in headers',
      inputSchema: {
        type: 'object',
        properties: {
          region: { type: 'string', 'x-mcp-header': 'Region' },
          limits: {
            type: 'object',
            properties: {
              rows: { type: 'integer', 'x-mcp-header': 'Rows' },
              dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' },
            },
          },
          note: { type: ['string', 'null'] },
        },
      },
      handler: ({ region }) => `routed to ${region ?? 'nowhere'}`,
    })
    .tool({
      name: 'echo',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      handler: ({ text }) => text,
    })
    .tool({
      name: 'steps',
      description: 'Reports progress twice over 50 ms, then answers',
      inputSchema: { type: 'object', properties: {} },
      handler: async (_args, ctx) => {
        ctx.progress(1, 2, 'half');
        await new Promise((resolve) => setTimeout(resolve, 50));
        ctx.progress(2, 2, 'done');
        return 'stepped';
      },
    });
}

const isHeaderMismatch = (reply: { status: number; body: Wire }, id?: number) => {
  assert.equal(reply.status, 400, JSON.stringify(reply.body));
  assert.equal(reply.body.error.code, -32020, JSON.stringify(reply.body));
  if (id !== undefined) assert.equal(reply.body.id, id);
};

const isAccepted = (reply: { status: number; body: Wire; raw: string }) => {
  assert.equal(reply.status, 200, reply.raw);
  assert.equal(reply.body.error, undefined, reply.raw);
  assert.equal(reply.body.result.resultType, 'complete');
};

describe('modern Streamable HTTP: header checks and statuses', () => {
  let server: McpServer;
  let peer: ModernHttpPeer;
  let port: number;
  before(async () => {
    server = headerServer();
    await server.listen({ http: { port: 0 }, handleSignals: false });
    port = server.addresses.http!.port;
    peer = new ModernHttpPeer(`http://127.0.0.1:${port}/mcp`);
  });
  after(() => server.close());

  describe('the version header and the envelope, in order', () => {
    it('a request without MCP-Protocol-Version is 400 / -32020, answered under its id', async () => {
      const reply = await peer.request('tools/list', {}, { 'mcp-protocol-version': null }, { id: 7 });
      isHeaderMismatch(reply, 7);
      assert.match(reply.body.error.message, /MCP-Protocol-Version/);
    });

    it('a missing _meta, or one lacking the version or the capabilities, is 400 / -32602', async () => {
      const cases: Record<string, unknown>[] = [
        { _meta: undefined },
        { _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } },
        { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN_VERSION } },
      ];
      for (const params of cases) {
        const reply = await peer.request('server/discover', params, {}, { id: 101 });
        assert.equal(reply.status, 400, reply.raw);
        assert.equal(reply.body.error.code, -32602, reply.raw);
        assert.equal(reply.body.id, 101);
      }
    });

    it('a request that names 2026-07-28 in its header but has no envelope is told about the envelope', async () => {
      const reply = await peer.request('tools/list', { _meta: undefined });
      assert.equal(reply.status, 400);
      assert.equal(reply.body.error.code, -32602);
      assert.match(reply.body.error.message, /params\._meta/);
    });

    it('a header version unlike the body version is 400 / -32020, even when the body version is unknown', async () => {
      const reply = await peer.request('server/discover', {
        _meta: envelope({ 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' }),
      });
      isHeaderMismatch(reply);
      const other = await peer.request('server/discover', {}, { 'mcp-protocol-version': '2025-11-25' });
      isHeaderMismatch(other);
    });

    it('an unsupported version is 400 / -32022 with the supported versions and the one requested', async () => {
      const discovered = await peer.request('server/discover');
      const supported: string[] = discovered.body.result.supportedVersions;
      const reply = await peer.request(
        'server/discover',
        { _meta: envelope({ 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' }) },
        { 'mcp-protocol-version': 'v999.0.0' },
        { id: 301 },
      );
      assert.equal(reply.status, 400);
      assert.equal(reply.body.error.code, -32022);
      assert.equal(reply.body.id, 301);
      assert.equal(reply.body.error.data.requested, 'v999.0.0');
      assert.ok(reply.body.error.data.supported.length > 0);
      for (const version of reply.body.error.data.supported) assert.ok(supported.includes(version));
    });

    it('a request with no clientInfo is served', async () => {
      const reply = await peer.request('server/discover', {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      });
      isAccepted(reply);
      assert.equal(reply.body.result._meta['io.modelcontextprotocol/serverInfo'].name, 'modern-headers');
    });
  });

  describe('method routing', () => {
    it('removed and unknown methods are 404 / -32601 under their id', async () => {
      for (const method of [
        'initialize',
        'ping',
        'logging/setLevel',
        'resources/subscribe',
        'unknown/method',
      ]) {
        const reply = await peer.request(method, {}, {}, { id: 500 });
        assert.equal(reply.status, 404, `${method}: ${reply.raw}`);
        assert.equal(reply.body.error.code, -32601, method);
        assert.equal(reply.body.id, 500);
      }
    });

    it('an unknown tool is answered in-band (200, -32602): the request itself was well formed', async () => {
      const reply = await peer.request('tools/call', { name: 'nope', arguments: {} });
      assert.equal(reply.status, 200);
      assert.equal(reply.body.error.code, -32602);
    });
  });

  describe('Mcp-Method and Mcp-Name', () => {
    it('a missing or different Mcp-Method is 400 / -32020; values are case-sensitive', async () => {
      isHeaderMismatch(await peer.request('tools/list', {}, { 'mcp-method': null }));
      isHeaderMismatch(await peer.request('tools/list', {}, { 'mcp-method': 'prompts/list' }));
      isHeaderMismatch(await peer.request('tools/list', {}, { 'mcp-method': 'TOOLS/LIST' }));
    });

    it('header names are case-insensitive', async () => {
      isAccepted(await peer.request('tools/list', {}, { 'mcp-method': null, 'MCP-METHOD': 'tools/list' }));
      isAccepted(await peer.request('tools/list', {}, { 'mcp-method': null, 'Mcp-Method': 'tools/list' }));
    });

    it('a missing or different Mcp-Name on tools/call is 400 / -32020', async () => {
      const params = { name: 'echo', arguments: { text: 'x' } };
      isHeaderMismatch(await peer.request('tools/call', params, { 'mcp-name': null }));
      isHeaderMismatch(await peer.request('tools/call', params, { 'mcp-name': 'route' }));
      isHeaderMismatch(await peer.request('tools/call', params, { 'mcp-name': 'ECHO' }));
    });

    it('whitespace around a header value is not part of it', async () => {
      isAccepted(
        await peer.request(
          'tools/call',
          { name: 'echo', arguments: { text: 'x' } },
          { 'mcp-name': '  echo \t' },
        ),
      );
    });

    it('an Mcp-Name in the Base64 sentinel is decoded before comparing', async () => {
      const encoded = `=?base64?${Buffer.from('echo').toString('base64')}?=`;
      isAccepted(
        await peer.request('tools/call', { name: 'echo', arguments: { text: 'x' } }, { 'mcp-name': encoded }),
      );
      isHeaderMismatch(
        await peer.request(
          'tools/call',
          { name: 'echo', arguments: { text: 'x' } },
          { 'mcp-name': '=?base64?ZWNobw?=' },
        ),
      );
    });
  });

  describe('Mcp-Param-* for x-mcp-header arguments', () => {
    const call = (args: Record<string, unknown>, headers: Record<string, string | null>) =>
      peer.request('tools/call', { name: 'route', arguments: args }, headers);

    it('every annotated argument present arrives in its header, nested ones and all types included', async () => {
      const reply = await call(
        { region: 'us-west1', limits: { rows: 42, dry: false } },
        { 'Mcp-Param-Region': 'us-west1', 'mcp-param-rows': '42', 'MCP-PARAM-DRY-RUN': 'false' },
      );
      isAccepted(reply);
      assert.equal(reply.body.result.content[0].text, 'routed to us-west1');
    });

    it('integers are compared as numbers', async () => {
      isAccepted(await call({ limits: { rows: 42 } }, { 'mcp-param-rows': '42.0' }));
      isHeaderMismatch(await call({ limits: { rows: 42 } }, { 'mcp-param-rows': '43' }));
      isHeaderMismatch(await call({ limits: { rows: 42 } }, { 'mcp-param-rows': 'forty-two' }));
    });

    it('booleans are true / false exactly', async () => {
      isAccepted(await call({ limits: { dry: true } }, { 'mcp-param-dry-run': 'true' }));
      isHeaderMismatch(await call({ limits: { dry: true } }, { 'mcp-param-dry-run': 'TRUE' }));
      isHeaderMismatch(await call({ limits: { dry: true } }, { 'mcp-param-dry-run': '1' }));
    });

    it('absent and null arguments need no header, and a header without a value is refused', async () => {
      isAccepted(await call({}, {}));
      isAccepted(await call({ region: null }, {}));
      isHeaderMismatch(await call({}, { 'mcp-param-region': 'us-west1' }));
    });

    it('a missing or different header is 400 / -32020', async () => {
      const missing = await call({ region: 'us-west1' }, {});
      isHeaderMismatch(missing);
      assert.match(missing.body.error.message, /Mcp-Param-Region/);
      isHeaderMismatch(await call({ region: 'us-west1' }, { 'mcp-param-region': 'eu-west1' }));
      isHeaderMismatch(await call({ region: 'us-west1' }, { 'mcp-param-region': 'US-WEST1' }));
    });

    it('Base64 sentinel values are decoded strictly; a value without both markers is literal', async () => {
      const hello = Buffer.from('Hello').toString('base64');
      isAccepted(await call({ region: 'Hello' }, { 'mcp-param-region': `=?base64?${hello}?=` }));
      isAccepted(
        await call({ region: 'Hello, 世界' }, { 'mcp-param-region': '=?base64?SGVsbG8sIOS4lueVjA==?=' }),
      );
      isHeaderMismatch(await call({ region: 'Hello' }, { 'mcp-param-region': '=?base64?SGVsbG8?=' }));
      isHeaderMismatch(await call({ region: 'Hello' }, { 'mcp-param-region': '=?base64?SGVs!!!bG8=?=' }));
      isAccepted(await call({ region: hello }, { 'mcp-param-region': hello }));
      isAccepted(await call({ region: `=?base64?${hello}` }, { 'mcp-param-region': `=?base64?${hello}` }));
    });

    it('a header for an argument of the wrong type is left to the schema, which refuses the call', async () => {
      const reply = await call({ region: 7 }, {});
      assert.equal(reply.status, 200);
      assert.equal(reply.body.result.isError, true);
    });
  });

  describe('answers', () => {
    it('a notification is accepted with 202 and no body', async () => {
      const reply = await peer.send(
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: envelope() } },
        { 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'notifications/cancelled' },
      );
      assert.equal(reply.status, 202);
      assert.equal(reply.raw, '');
    });

    it('a call with progress is a request-scoped SSE stream: no ids, no buffering, response last', async () => {
      const reply = await peer.request('tools/call', {
        name: 'steps',
        arguments: {},
        _meta: { ...envelope(), progressToken: 'p1' },
      });
      assert.equal(reply.status, 200);
      assert.match(reply.contentType ?? '', /^text\/event-stream/);
      assert.equal(reply.headers.get('x-accel-buffering'), 'no');
      assert.equal(reply.headers.get('mcp-session-id'), null);
      assert.doesNotMatch(reply.raw, /^id:/m);
      const messages = sseMessages(reply.raw);
      assert.deepEqual(
        messages.slice(0, -1).map((message) => [message.method, message.params.progress]),
        [
          ['notifications/progress', 1],
          ['notifications/progress', 2],
        ],
      );
      assert.equal(messages.at(-1).result.content[0].text, 'stepped');
      assert.equal(messages.at(-1).result.resultType, 'complete');
    });

    it('a request answered at once is plain JSON', async () => {
      const reply = await peer.request('tools/call', { name: 'echo', arguments: { text: 'hi' } });
      assert.match(reply.contentType ?? '', /^application\/json/);
      assert.equal(reply.body.result.content[0].text, 'hi');
    });

    it('legacy sessions still work on the same endpoint, even with a 2026 version header on initialize', async () => {
      const reply = await peer.send(
        {
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'old', version: '1' },
          },
        },
        { 'mcp-protocol-version': MODERN_VERSION },
      );
      assert.equal(reply.status, 200);
      assert.equal(reply.body.result.protocolVersion, '2025-11-25');
      assert.ok(reply.headers.get('mcp-session-id'));
    });
  });

  describe('DNS rebinding protection', () => {
    const rawDiscover = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const body = JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'server/discover',
          params: { _meta: envelope() },
        });
        const request = httpRequest(
          {
            host: '127.0.0.1',
            port,
            path: '/mcp',
            method: 'POST',
            headers: {
              host,
              origin: `http://${host}`,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'mcp-protocol-version': MODERN_VERSION,
              'mcp-method': 'server/discover',
            },
          },
          (response) => {
            response.resume();
            response.on('end', () => resolve(response.statusCode ?? 0));
          },
        );
        request.on('error', reject);
        request.end(body);
      });

    it('a foreign Host and Origin is refused with 403; localhost is served', async () => {
      assert.equal(await rawDiscover('evil.example.com'), 403);
      assert.equal(await rawDiscover(`localhost:${port}`), 200);
    });
  });
});

describe('modern Streamable HTTP while the server stops', () => {
  it('new requests get 503 / -32011 while a running call finishes, and that call is still answered', async () => {
    const server = headerServer().tool({
      name: 'nap',
      inputSchema: { type: 'object', properties: {} },
      handler: () => new Promise((resolve) => setTimeout(() => resolve('rested'), 1_500)),
    });
    await server.listen({ http: { port: 0 }, handleSignals: false });
    const peer = new ModernHttpPeer(`http://127.0.0.1:${server.addresses.http!.port}/mcp`);
    const running = peer.request('tools/call', { name: 'nap', arguments: {} });
    // Close only once the call is running (on a loaded machine its POST may take a while to arrive).
    for (let waited = 0; server.stats.inFlight === 0 && waited < 5_000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const closing = server.close();
    const refused = await peer.request('tools/list');
    assert.equal(refused.status, 503);
    assert.equal(refused.body.error.code, -32011);
    const answered = await running;
    // A silent call's answer is plain JSON (the stream opens only for something to stream).
    assert.equal(answered.headers.get('content-type'), 'application/json', answered.raw);
    assert.equal(answered.body.result.content[0].text, 'rested');
    await closing;
  });
});

describe('modern Streamable HTTP: when an answer gets a stream', () => {
  let server: McpServer;
  let peer: ModernHttpPeer;
  before(async () => {
    server = new McpServer({ name: 'stream-choice', version: '1.0.0' })
      .tool({
        name: 'quiet',
        inputSchema: { type: 'object', properties: { ms: { type: 'integer' } } },
        handler: ({ ms }) => new Promise((resolve) => setTimeout(() => resolve('done'), Number(ms))),
      })
      .tool({
        name: 'chatty',
        inputSchema: { type: 'object', properties: {} },
        handler: async (_args, ctx) => {
          await new Promise((resolve) => setTimeout(resolve, 50));
          ctx.progress(1, 2, 'halfway');
          await new Promise((resolve) => setTimeout(resolve, 50));
          return 'done';
        },
      });
    await server.listen({ http: { port: 0, keepAliveMs: 400 }, handleSignals: false });
    peer = new ModernHttpPeer(`http://127.0.0.1:${server.addresses.http!.port}/mcp`);
  });
  after(() => server.close());

  it('answers a call that sends nothing else as plain JSON, even when it takes more than a turn', async () => {
    const answered = await peer.request('tools/call', { name: 'quiet', arguments: { ms: 60 } });
    assert.equal(answered.headers.get('content-type'), 'application/json', answered.raw);
    assert.equal(answered.body.result.content[0].text, 'done');
  });

  it('opens the stream for the first message that is not the answer', async () => {
    const answered = await peer.request('tools/call', {
      name: 'chatty',
      arguments: {},
      _meta: { ...envelope(), progressToken: 'halfway' },
    });
    assert.match(answered.headers.get('content-type') ?? '', /text\/event-stream/);
    const messages = sseMessages(answered.raw);
    assert.equal(messages[0]?.method, 'notifications/progress', answered.raw);
    assert.equal(messages.at(-1)?.result.content[0].text, 'done', answered.raw);
  });

  it('opens the stream of a long silent call when its first keep-alive is due', async () => {
    const answered = await peer.request('tools/call', { name: 'quiet', arguments: { ms: 1_500 } });
    assert.match(answered.headers.get('content-type') ?? '', /text\/event-stream/);
    assert.match(answered.raw, /: keep-alive/);
    assert.equal(sseMessages(answered.raw).at(-1)?.result.content[0].text, 'done');
  });
});
