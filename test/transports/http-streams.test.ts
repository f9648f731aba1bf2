/**
 * Streamable HTTP streams: a running call is answered on an SSE stream (priming event, its
 * notifications, then its response); a client that vanishes mid-call does not cancel it and can
 * resume with Last-Event-ID; the polling pattern; `notifications/cancelled` over HTTP; 503 while
 * the server shuts down.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { McpServer } from '../../lib/index.js';
import { HttpPeer, messagesOf, readEvents } from './http-peer.js';

const outcomes: string[] = [];

/** A large answer JSON must escape, with characters of two and three UTF-8 bytes (kept as bytes). */
const LARGE_ANSWER = 'a "quoted" line,\tthen é and € \\ done\n'.repeat(8_000);

function slowServer(): McpServer {
  return new McpServer({ name: 'stream-test', version: '1.0.0', shutdownGraceMs: 2_000 })
    .tool({
      name: 'large_later',
      description: 'Answers a large document after ms milliseconds',
      inputSchema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] },
      handler: ({ ms }) => new Promise<string>((resolve) => setTimeout(() => resolve(LARGE_ANSWER), ms)),
    })
    .tool({
      name: 'slow',
      description: 'Waits ms milliseconds, reporting progress first; records how it ended',
      inputSchema: {
        type: 'object',
        properties: { ms: { type: 'integer' }, tag: { type: 'string' } },
        required: ['ms', 'tag'],
      },
      handler: ({ ms, tag }, ctx) =>
        new Promise<string>((resolve, reject) => {
          ctx.progress(1, 2, 'started');
          const timer = setTimeout(() => {
            outcomes.push(`${tag}:finished`);
            resolve(`slept ${ms} ms`);
          }, ms);
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            outcomes.push(`${tag}:aborted`);
            reject(ctx.signal.reason);
          });
        }),
    });
}

const call = (id: number, tag: string, ms: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'slow', arguments: { ms, tag }, _meta: { progressToken: `p${id}` } },
});

describe('Streamable HTTP streams', () => {
  let server: McpServer;
  let url: string;
  before(async () => {
    server = slowServer();
    await server.listen({
      http: {
        port: 0,
        retryMs: 250,
        pollAfterMs: (request) =>
          (request.params?.arguments as { tag?: string } | undefined)?.tag === 'poll' ? 50 : undefined,
      },
      handleSignals: false,
    });
    url = `http://127.0.0.1:${server.addresses.http!.port}/mcp`;
  });
  after(() => server.close());

  it('sends no priming event to a session below 2025-11-25 (its clients cannot parse empty data)', async () => {
    for (const version of ['2025-06-18', '2025-03-26']) {
      const peer = new HttpPeer(url);
      await peer.initialize({}, version);
      const response = await peer.post(call(1, `old-${version}`, 30), { 'mcp-protocol-version': version });
      assert.equal(response.headers.get('content-type'), 'text/event-stream');
      const events = await readEvents(response);
      assert.ok(events.length > 0);
      assert.ok(
        events.every((event) => event.data !== ''),
        `${version}: no event with empty data, got ${JSON.stringify(events)}`,
      );
      assert.equal(messagesOf(events).at(-1).id, 1);
      const standalone = new AbortController();
      const get = await peer.get({ 'mcp-protocol-version': version }, standalone.signal);
      assert.equal(get.status, 200);
      const reader = get.body!.getReader();
      const first = await Promise.race([
        reader.read().then((chunk) => new TextDecoder().decode(chunk.value)),
        new Promise<string>((resolve) => setTimeout(() => resolve('(nothing)'), 100)),
      ]);
      assert.equal(first, '(nothing)', `${version}: the standalone stream is not primed`);
      standalone.abort();
      await reader.cancel().catch(() => {});
    }
  });

  it('answers a running call on an SSE stream: priming event, progress, then the response', async () => {
    const peer = new HttpPeer(url);
    await peer.initialize();
    const response = await peer.post(call(1, 'sse', 50));
    assert.equal(response.headers.get('content-type'), 'text/event-stream');
    const events = await readEvents(response);
    assert.equal(events[0]!.data, '', 'the first event primes the stream');
    assert.ok(events[0]!.id && events[0]!.retry === 250);
    const messages = messagesOf(events);
    assert.equal(messages[0].method, 'notifications/progress');
    assert.equal(messages[0].params.progressToken, 'p1');
    assert.equal(messages.at(-1).id, 1);
    assert.equal(messages.at(-1).result.content[0].text, 'slept 50 ms');
    assert.ok(
      events.every((event) => event.id),
      'every event carries an id',
    );
  });

  it('does not cancel a call whose client vanished, and replays its answer after Last-Event-ID', async () => {
    const peer = new HttpPeer(url);
    await peer.initialize();
    const controller = new AbortController();
    const response = await peer.post(call(2, 'vanish', 300), {}, controller.signal);
    const seen = await readEvents(response, (event) => event.data !== '');
    controller.abort();
    const lastId = seen.at(-1)!.id!;
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.ok(outcomes.includes('vanish:finished'), `outcomes: ${outcomes}`);
    const resumed = await peer.get({ 'last-event-id': lastId });
    assert.equal(resumed.status, 200);
    const replayed = messagesOf(await readEvents(resumed));
    assert.deepEqual(
      replayed.map((message) => message.id),
      [2],
      'only what came after the last seen event is replayed',
    );
  });

  it('replays a large answer whole, byte for byte, then forgets what the resumed stream delivered', async () => {
    const peer = new HttpPeer(url);
    await peer.initialize();
    const controller = new AbortController();
    const request = {
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: 'large_later', arguments: { ms: 200 } },
    };
    const response = await peer.post(request, {}, controller.signal);
    const primed = await readEvents(response, (event) => event.id !== undefined);
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 400));
    const lastSeen = { 'last-event-id': primed[0]!.id! };
    const replayed = messagesOf(await readEvents(await peer.get(lastSeen)));
    assert.equal(replayed.length, 1, 'the answer alone');
    assert.equal(replayed[0].id, 4);
    assert.equal(replayed[0].result.content[0].text, LARGE_ANSWER, 'the same text');
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal((await peer.get(lastSeen)).status, 404, 'delivered whole, so no longer kept');
  });

  it('forgets the events of a stream it delivered whole, and keeps those of one the client left', async () => {
    const peer = new HttpPeer(url);
    await peer.initialize();
    const delivered = await readEvents(await peer.post(call(5, 'delivered', 10)));
    assert.equal(messagesOf(delivered).at(-1).id, 5, 'answered on its stream');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const deliveredFrom = { 'last-event-id': delivered[0]!.id! };
    assert.equal((await peer.get(deliveredFrom)).status, 404, 'nothing kept of a delivered stream');

    const controller = new AbortController();
    const left = await peer.post(call(6, 'left', 200), {}, controller.signal);
    const seen = await readEvents(left, (event) => event.id !== undefined);
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 400));
    const resumed = messagesOf(await readEvents(await peer.get({ 'last-event-id': seen[0]!.id! })));
    assert.equal(resumed.at(-1).id, 6, 'the answer the client missed is replayed');
  });

  it('closes a long call stream with retry (polling) and delivers the answer on the resumed stream', async () => {
    const peer = new HttpPeer(url);
    await peer.initialize();
    const first = await readEvents(await peer.post(call(3, 'poll', 300)));
    assert.equal(
      messagesOf(first).filter((message) => message.id === 3).length,
      0,
      'closed before the answer',
    );
    assert.equal(first.at(-1)!.retry, 250, 'the stream ends by telling the client when to come back');
    const lastId = [...first].reverse().find((event) => event.id)!.id!;
    const resumed = messagesOf(await readEvents(await peer.get({ 'last-event-id': lastId })));
    assert.equal(resumed.at(-1).id, 3);
    assert.equal(resumed.at(-1).result.content[0].text, 'slept 300 ms');
  });

  it('cancels a call on notifications/cancelled: the handler stops and no response is sent', async () => {
    const peer = new HttpPeer(url);
    await peer.initialize();
    const response = await peer.post(call(4, 'cancel', 10_000));
    const events = readEvents(response);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const ack = await peer.post({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 4 },
    });
    assert.equal(ack.status, 202);
    const messages = messagesOf(await events);
    assert.ok(outcomes.includes('cancel:aborted'));
    assert.equal(messages.filter((message) => message.id === 4).length, 0);
  });

  it('refuses unknown Last-Event-IDs with 404 and serves the standalone GET stream', async () => {
    const peer = new HttpPeer(url);
    await peer.initialize();
    assert.equal((await peer.get({ 'last-event-id': 'nope_7' })).status, 404);
    const controller = new AbortController();
    const standalone = await peer.get({}, controller.signal);
    assert.equal(standalone.status, 200);
    assert.equal(standalone.headers.get('content-type'), 'text/event-stream');
    controller.abort();
  });
});

describe('Streamable HTTP during shutdown', () => {
  it('refuses new requests with 503 while a running call still gets its answer', async () => {
    const server = slowServer();
    await server.listen({ http: { port: 0 }, handleSignals: false });
    const peer = new HttpPeer(`http://127.0.0.1:${server.addresses.http!.port}/mcp`);
    await peer.initialize();
    const running = peer.post(call(5, 'shutdown', 300)).then((response) => readEvents(response));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closing = server.close();
    const refused = await peer.post({ jsonrpc: '2.0', id: 6, method: 'tools/list' });
    assert.equal(refused.status, 503);
    assert.equal(((await refused.json()) as { error: { code: number } }).error.code, -32011);
    const answered = messagesOf(await running);
    assert.equal(answered.at(-1).id, 5);
    await closing;
  });
});

describe('a client that accepts only JSON on its POSTs', () => {
  it('receives the server’s requests on its standalone GET stream, and the call answer as JSON', async () => {
    const server = new McpServer({ name: 'json-only', version: '1.0.0' }).tool({
      name: 'ask',
      description: 'Asks for a colour',
      inputSchema: { type: 'object', properties: {} },
      handler: async (_args, ctx) => {
        const answer = await ctx.elicit!({
          message: 'Colour?',
          requestedSchema: { type: 'object', properties: { colour: { type: 'string' } } },
        });
        return `colour: ${answer.content?.colour}`;
      },
    });
    await server.listen({ http: { port: 0 }, handleSignals: false });
    const peer = new HttpPeer(`http://127.0.0.1:${server.addresses.http!.port}/mcp`);
    await peer.initialize({ elicitation: {} });
    const controller = new AbortController();
    const standalone = await peer.get({}, controller.signal);
    const asked = readEvents(standalone, (event) => event.data !== '');
    const answer = peer.post(
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'ask', arguments: {} } },
      { accept: 'application/json' },
    );
    const [request] = messagesOf(await asked);
    assert.equal(request.method, 'elicitation/create');
    const reply = await peer.post({
      jsonrpc: '2.0',
      id: request.id,
      result: { action: 'accept', content: { colour: 'teal' } },
    });
    assert.equal(reply.status, 202);
    const response = await answer;
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.equal(
      ((await response.json()) as { result: { content: { text: string }[] } }).result.content[0]!.text,
      'colour: teal',
    );
    controller.abort();
    await server.close();
  });
});
