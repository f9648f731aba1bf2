/**
 * Spans per the MCP semantic conventions, through the router's one door: every method of both
 * eras, the parent taken from `params._meta` (W3C), blocking calls' queue and run spans on threads
 * and processes, spans a handler makes inside its pool thread or process landing in the same
 * trace, and `error.type` for every way a call ends.
 */
import './otel-harness.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { McpServer } from '../../lib/index.js';
import { envelope } from '../router/modern-fixtures.js';
import { InProcessClient } from '../support/in-process-client.js';
import { childrenOf, parentOf, spanEnded, spans, spansNamed } from './otel-harness.js';
import { crash, fail, spin, traced, tracedProcess } from './telemetry-tools.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`;

function buildServer(options: Partial<ConstructorParameters<typeof McpServer>[0]> = {}): McpServer {
  return new McpServer({ name: 'telemetry', version: '1.0.0', pool: { maxThreads: 1 }, ...options })
    .tool({ name: 'echo', inputSchema: { type: 'object' }, handler: (args) => args })
    .tool({
      name: 'inline_fail',
      inputSchema: { type: 'object' },
      handler: () => {
        throw new Error('inline failure');
      },
    })
    .tool(traced)
    .tool(tracedProcess)
    .tool(spin)
    .tool(crash)
    .tool(fail)
    .prompt({
      name: 'greet',
      arguments: [{ name: 'who', required: true }],
      get: ({ who }) => `Hello, ${who}`,
    })
    .resource({ uri: 'app://config', name: 'config', read: () => '{"a":1}' });
}

const attr = (span: { attributes: Record<string, unknown> }, key: string) => span.attributes[key];

describe('request spans', () => {
  let server: McpServer;
  let client: InProcessClient;

  before(async () => {
    server = buildServer({ timeoutMs: 0 });
    client = new InProcessClient(server);
    await client.initialize('2025-11-25');
  });
  after(() => server.close());

  it('makes a SERVER span for every method of the legacy era, named by method and target', async () => {
    const calls: Array<[string, Record<string, unknown>, string]> = [
      ['ping', {}, 'ping'],
      ['tools/list', {}, 'tools/list'],
      ['tools/call', { name: 'echo', arguments: { a: 1 } }, 'tools/call echo'],
      ['prompts/list', {}, 'prompts/list'],
      ['prompts/get', { name: 'greet', arguments: { who: 'ada' } }, 'prompts/get greet'],
      ['resources/list', {}, 'resources/list'],
      ['resources/templates/list', {}, 'resources/templates/list'],
      ['resources/read', { uri: 'app://config' }, 'resources/read'],
      ['logging/setLevel', { level: 'info' }, 'logging/setLevel'],
      ['no/such', {}, 'no/such'],
    ];
    for (const [method, params, name] of calls) {
      const id = `legacy-${method}`;
      await client.request(method, params, id);
      const span = await spanEnded(name, (s) => attr(s, 'jsonrpc.request.id') === id);
      assert.equal(span.kind, SpanKind.SERVER);
      assert.equal(attr(span, 'mcp.method.name'), method);
      assert.equal(attr(span, 'mcp.protocol.version'), '2025-11-25', name);
    }
    const call = await spanEnded('tools/call echo');
    assert.equal(attr(call, 'gen_ai.tool.name'), 'echo');
    assert.equal(attr(call, 'gen_ai.operation.name'), 'execute_tool');
    assert.equal(call.status.code, SpanStatusCode.UNSET);
    assert.equal(attr(await spanEnded('prompts/get greet'), 'gen_ai.prompt.name'), 'greet');
    assert.equal(attr(await spanEnded('resources/read'), 'mcp.resource.uri'), 'app://config');
    const unknown = await spanEnded('no/such');
    assert.equal(attr(unknown, 'error.type'), '-32601');
    assert.equal(attr(unknown, 'rpc.response.status_code'), '-32601');
    assert.equal(unknown.status.code, SpanStatusCode.ERROR);
    // initialize was the first request: its version comes from its own params.
    assert.equal(attr(await spanEnded('initialize'), 'mcp.protocol.version'), '2025-11-25');
  });

  it('makes a SERVER span for every method of the 2026-07-28 era, version from each request', async () => {
    const calls: Array<[string, Record<string, unknown>, string]> = [
      ['server/discover', {}, 'server/discover'],
      ['tools/list', {}, 'tools/list'],
      ['tools/call', { name: 'echo', arguments: { b: 2 } }, 'tools/call echo'],
      ['prompts/list', {}, 'prompts/list'],
      ['prompts/get', { name: 'greet', arguments: { who: 'alan' } }, 'prompts/get greet'],
      ['resources/list', {}, 'resources/list'],
      ['resources/read', { uri: 'app://config' }, 'resources/read'],
      ['initialize', {}, 'initialize'],
    ];
    for (const [method, params, name] of calls) {
      const id = `modern-${method}`;
      await client.request(method, { ...params, _meta: envelope() }, id);
      const span = await spanEnded(name, (s) => attr(s, 'jsonrpc.request.id') === id);
      assert.equal(attr(span, 'mcp.method.name'), method);
      assert.equal(attr(span, 'mcp.protocol.version'), '2026-07-28', name);
    }
    // initialize is not a method of the modern era.
    const initialize = await spanEnded(
      'initialize',
      (s) => attr(s, 'jsonrpc.request.id') === 'modern-initialize',
    );
    assert.equal(attr(initialize, 'error.type'), '-32601');
  });

  it('takes the parent from params._meta in both eras, and keeps its trace', async () => {
    await client.request(
      'tools/call',
      { name: 'echo', arguments: {}, _meta: { traceparent: TRACEPARENT } },
      'p-legacy',
    );
    await client.request(
      'tools/call',
      { name: 'echo', arguments: {}, _meta: envelope({ traceparent: TRACEPARENT, tracestate: 'vendor=x' }) },
      'p-modern',
    );
    for (const id of ['p-legacy', 'p-modern']) {
      const span = await spanEnded('tools/call echo', (s) => attr(s, 'jsonrpc.request.id') === id);
      assert.equal(span.spanContext().traceId, TRACE_ID, id);
      assert.equal(parentOf(span), PARENT_ID, id);
    }
    const modern = await spanEnded('tools/call echo', (s) => attr(s, 'jsonrpc.request.id') === 'p-modern');
    assert.equal(modern.spanContext().traceState?.get('vendor'), 'x');
    // A malformed traceparent is ignored: the request is served, in a trace of its own.
    const reply = await client.request(
      'tools/call',
      { name: 'echo', arguments: {}, _meta: { traceparent: 'junk' } },
      'p-bad',
    );
    assert.ok(reply.result);
    const bad = await spanEnded('tools/call echo', (s) => attr(s, 'jsonrpc.request.id') === 'p-bad');
    assert.notEqual(bad.spanContext().traceId, TRACE_ID);
  });

  it("shows a blocking call as its run on a thread, with the handler's own spans in the same trace", async () => {
    const reply = await client.request(
      'tools/call',
      { name: 'traced', arguments: {}, _meta: { traceparent: TRACEPARENT } },
      'thread-1',
    );
    const seenInThread = reply.result?.content?.[0]?.text;
    const request = await spanEnded('tools/call traced', (s) => attr(s, 'jsonrpc.request.id') === 'thread-1');
    const run = await spanEnded('weft.run traced', (s) => parentOf(s) === request.spanContext().spanId);
    assert.equal(attr(run, 'weft.executor'), 'thread');
    assert.match(String(attr(run, 'weft.worker')), /^thread \d+$/);
    assert.equal(attr(run, 'weft.outcome'), 'ok');
    const [inner] = childrenOf(run);
    assert.ok(inner, 'the span made inside the thread is a child of the run span');
    assert.equal(inner.name, 'inner work');
    assert.equal(inner.spanContext().traceId, TRACE_ID);
    assert.equal(seenInThread, TRACE_ID, "the handler saw the request's trace inside its thread");
    assert.equal(inner.attributes['work.size'], 3);
    assert.deepEqual(
      inner.events.map((event) => event.name),
      ['halfway'],
    );
    assert.deepEqual(
      childrenOf(inner).map((span) => span.name),
      ['innermost'],
    );
    assert.ok(
      inner.startTime[0] * 1e3 + inner.startTime[1] / 1e6 >=
        run.startTime[0] * 1e3 + run.startTime[1] / 1e6 - 5,
    );
  });

  it('does the same for a process-isolated tool, the worker being its pid', async () => {
    await client.request(
      'tools/call',
      { name: 'traced_process', arguments: {}, _meta: { traceparent: TRACEPARENT } },
      'proc-1',
    );
    const request = await spanEnded(
      'tools/call traced_process',
      (s) => attr(s, 'jsonrpc.request.id') === 'proc-1',
    );
    const run = await spanEnded(
      'weft.run traced_process',
      (s) => parentOf(s) === request.spanContext().spanId,
    );
    assert.equal(attr(run, 'weft.executor'), 'process');
    assert.match(String(attr(run, 'weft.worker')), /^pid \d+$/);
    const [inner] = childrenOf(run);
    assert.equal(inner?.name, 'inner work');
    assert.equal(inner?.spanContext().traceId, TRACE_ID);
  });

  it('shows the queue wait of a call that waited for the one thread', async () => {
    const first = client.request('tools/call', { name: 'spin', arguments: { ms: 300 } }, 'q-1');
    const second = client.request('tools/call', { name: 'spin', arguments: { ms: 10 } }, 'q-2');
    await Promise.all([first, second]);
    const request = await spanEnded('tools/call spin', (s) => attr(s, 'jsonrpc.request.id') === 'q-2');
    const children = childrenOf(request);
    const queue = children.find((span) => span.name === 'weft.queue spin');
    const run = children.find((span) => span.name === 'weft.run spin');
    assert.ok(queue && run, `children: ${children.map((span) => span.name)}`);
    const ms = (t: [number, number]) => t[0] * 1e3 + t[1] / 1e6;
    assert.ok(ms(queue.endTime) - ms(queue.startTime) >= 100, 'it waited while the first call ran');
    assert.ok(ms(run.startTime) >= ms(queue.endTime) - 1);
    // The first call found the thread free: no queue span.
    const firstRequest = await spanEnded('tools/call spin', (s) => attr(s, 'jsonrpc.request.id') === 'q-1');
    assert.deepEqual(
      childrenOf(firstRequest).map((span) => span.name),
      ['weft.run spin'],
    );
  });

  it('names every way a call can fail in error.type', async () => {
    await client.request('tools/call', { name: 'fail', arguments: {} }, 'e-fail');
    await client.request('tools/call', { name: 'inline_fail', arguments: {} }, 'e-inline');
    await client.request('tools/call', { name: 'crash', arguments: {} }, 'e-crash');
    const expectations: Array<[string, string, string]> = [
      ['e-fail', 'tools/call fail', 'tool_error'],
      ['e-inline', 'tools/call inline_fail', 'tool_error'],
      ['e-crash', 'tools/call crash', 'weft.panicked'],
    ];
    for (const [id, name, errorType] of expectations) {
      const span = await spanEnded(name, (s) => attr(s, 'jsonrpc.request.id') === id);
      assert.equal(attr(span, 'error.type'), errorType, id);
      assert.equal(span.status.code, SpanStatusCode.ERROR, id);
    }
    assert.equal(attr(await spanEnded('tools/call crash'), 'rpc.response.status_code'), '-32603');
    const run = await spanEnded('weft.run crash');
    assert.equal(attr(run, 'weft.outcome'), 'panicked');
  });

  it('names a timeout and a cancel', async () => {
    const timed = buildServer({ timeoutMs: 100 });
    const timedClient = new InProcessClient(timed);
    try {
      await timedClient.request(
        'tools/call',
        { name: 'spin', arguments: { ms: 2_000 }, _meta: envelope() },
        't-1',
      );
      const span = await spanEnded('tools/call spin', (s) => attr(s, 'jsonrpc.request.id') === 't-1');
      assert.equal(attr(span, 'error.type'), 'weft.timeout');
      assert.equal(
        attr(
          await spanEnded('weft.run spin', (s) => parentOf(s) === span.spanContext().spanId),
          'weft.outcome',
        ),
        'timeout',
      );
    } finally {
      await timed.close();
    }
    void client.request('tools/call', { name: 'spin', arguments: { ms: 5_000 } }, 'c-1');
    await spanEnded('weft.run spin', () => false, 300).catch(() => {});
    client.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c-1' } });
    const cancelled = await spanEnded('tools/call spin', (s) => attr(s, 'jsonrpc.request.id') === 'c-1');
    assert.equal(attr(cancelled, 'error.type'), 'weft.cancelled');
  });

  it('names an overloaded call', async () => {
    const small = buildServer({ pool: { maxThreads: 1, maxQueue: 0 } });
    const smallClient = new InProcessClient(small);
    try {
      const busy = smallClient.request('tools/call', { name: 'spin', arguments: { ms: 400 } }, 'o-1');
      await new Promise((resolve) => setTimeout(resolve, 50));
      const refused = await smallClient.request('tools/call', { name: 'spin', arguments: { ms: 10 } }, 'o-2');
      assert.equal(refused.error?.code, -32010);
      await busy;
      const span = await spanEnded('tools/call spin', (s) => attr(s, 'jsonrpc.request.id') === 'o-2');
      assert.equal(attr(span, 'error.type'), 'weft.overloaded');
      assert.equal(attr(span, 'rpc.response.status_code'), '-32010');
    } finally {
      await small.close();
    }
  });

  it('refuses a telemetry option that is not a boolean, saying what it takes', () => {
    assert.throws(
      () => new McpServer({ name: 'x', version: '1', telemetry: 'on' as never }),
      /telemetry must be true or false \(got "on"\)/,
    );
  });

  it('makes no spans with telemetry: false', async () => {
    const quiet = buildServer({ telemetry: false });
    const quietClient = new InProcessClient(quiet);
    try {
      const before = spans.getFinishedSpans().length;
      await quietClient.request('tools/call', { name: 'echo', arguments: {} }, 'quiet');
      await quietClient.request('tools/call', { name: 'traced', arguments: {} }, 'quiet-2');
      const made = spans
        .getFinishedSpans()
        .slice(before)
        .filter((span) => span.name !== 'inner work');
      assert.deepEqual(
        made.map((span) => span.name),
        [],
      );
      assert.equal(
        spansNamed('tools/call echo').filter((s) => attr(s, 'jsonrpc.request.id') === 'quiet').length,
        0,
      );
    } finally {
      await quiet.close();
    }
  });
});
