/**
 * The metrics weft records (the conventions' operation and session durations, weft's own per-call
 * ones), a `traceparent` sent by the official v2 client in `_meta` becoming the request's parent,
 * and a task's work as its own trace linked to the request that created it.
 */
import './otel-harness.js';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import WebSocket from 'ws';
import { McpServer } from '../../lib/index.js';
import { envelope } from '../router/modern-fixtures.js';
import { InProcessClient } from '../support/in-process-client.js';
import { parentOf, points, spanEnded } from './otel-harness.js';
import { spin, tasked, traced } from './telemetry-tools.js';

const TRACE_ID = '5b8aa5a2d2c872e8321cf37308d69df2';
const PARENT_ID = '051581bf3cb55c13';

function buildServer(): McpServer {
  return new McpServer({ name: 'metrics', version: '1.0.0', pool: { maxThreads: 1 } })
    .tool({ name: 'echo', inputSchema: { type: 'object' }, handler: (args) => args })
    .tool(traced)
    .tool(spin)
    .tool(tasked);
}

describe('metrics, the v2 client and tasks', () => {
  let server: McpServer;

  before(async () => {
    server = buildServer();
    await server.listen({ http: { port: 0 }, handleSignals: false });
  });
  after(() => server.close());

  it('takes the traceparent the official v2 client puts in _meta as the parent', async () => {
    const url = new URL(`http://127.0.0.1:${server.addresses.http?.port}/mcp`);
    const client = new Client(
      { name: 'otel-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new StreamableHTTPClientTransport(url));
    try {
      const result = await client.callTool({
        name: 'echo',
        arguments: { x: 1 },
        _meta: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
      });
      assert.ok(!result.isError);
      const span = await spanEnded('tools/call echo', (s) => s.spanContext().traceId === TRACE_ID);
      assert.equal(parentOf(span), PARENT_ID);
      assert.equal(span.attributes['mcp.protocol.version'], '2026-07-28');
      assert.equal(span.attributes['network.transport'], 'tcp');
      assert.equal(span.attributes['network.protocol.name'], 'http');
      assert.equal(span.attributes['mcp.session.id'], undefined, 'a modern request has no session');
      assert.equal(span.attributes['client.address'], '127.0.0.1');
      const port = span.attributes['client.port'];
      assert.ok(Number.isInteger(port) && port !== server.addresses.http?.port, `client.port ${port}`);
    } finally {
      await client.close();
    }
  });

  it("puts each legacy HTTP request's own socket in client.address and client.port", async () => {
    const url = `http://127.0.0.1:${server.addresses.http?.port}/mcp`;
    // No keep-alive: each POST comes from a socket of its own, whose local port the client knows.
    const post = async (body: object, sessionId?: string) => {
      const { request } = await import('node:http');
      return new Promise<{ port: number; sessionId: string | undefined }>((resolve, reject) => {
        const headers: Record<string, string> = {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
          ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
        };
        let port = 0;
        const sent = request(url, { method: 'POST', headers, agent: false }, (response) => {
          response.resume();
          response.on('end', () =>
            resolve({ port, sessionId: response.headers['mcp-session-id'] as string | undefined }),
          );
        });
        sent.on('socket', (socket) => socket.on('connect', () => (port = socket.localPort ?? 0)));
        sent.on('error', reject);
        sent.end(JSON.stringify(body));
      });
    };
    const opened = await post({
      jsonrpc: '2.0',
      id: 'addr-init',
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'a', version: '0' } },
    });
    assert.ok(opened.sessionId);
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, opened.sessionId);
    const called = await post(
      { jsonrpc: '2.0', id: 'addr-call', method: 'tools/call', params: { name: 'echo', arguments: {} } },
      opened.sessionId,
    );
    assert.notEqual(called.port, opened.port);
    const initialize = await spanEnded(
      'initialize',
      (s) => s.attributes['jsonrpc.request.id'] === 'addr-init',
    );
    const call = await spanEnded(
      'tools/call echo',
      (s) => s.attributes['jsonrpc.request.id'] === 'addr-call',
    );
    assert.equal(initialize.attributes['client.port'], opened.port);
    assert.equal(
      call.attributes['client.port'],
      called.port,
      "the call's own socket, not the session's first",
    );
    assert.equal(call.attributes['client.address'], '127.0.0.1');
  });

  it('puts the WebSocket peer in client.address and client.port', async () => {
    const ws = new McpServer({ name: 'ws-otel', version: '1.0.0' }).tool({
      name: 'echo',
      inputSchema: { type: 'object' },
      handler: (args) => args,
    });
    await ws.listen({ ws: { port: 0, host: '127.0.0.1' }, handleSignals: false });
    const socket = new WebSocket(`ws://127.0.0.1:${ws.addresses.ws?.port}/`, 'mcp');
    try {
      let localPort = 0;
      socket.once('upgrade', (response) => {
        localPort = response.socket.localPort ?? 0;
      });
      await once(socket, 'open');
      const answered = once(socket, 'message');
      socket.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 'ws-call',
          method: 'tools/call',
          params: { name: 'echo', arguments: {}, _meta: envelope() },
        }),
      );
      await answered;
      const span = await spanEnded(
        'tools/call echo',
        (s) => s.attributes['jsonrpc.request.id'] === 'ws-call',
      );
      assert.equal(span.attributes['network.protocol.name'], 'websocket');
      assert.equal(span.attributes['client.address'], '127.0.0.1');
      assert.equal(span.attributes['client.port'], localPort);
    } finally {
      socket.close();
      await ws.close();
    }
  });

  it('records operation durations, run times, queue waits and outcomes per tool', async () => {
    const client = new InProcessClient(server);
    await client.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'm', version: '0' },
    });
    await Promise.all([
      client.request('tools/call', { name: 'spin', arguments: { ms: 150 } }),
      client.request('tools/call', { name: 'spin', arguments: { ms: 5 } }),
      client.request('tools/call', { name: 'echo', arguments: {} }),
    ]);
    const operations = await points('mcp.server.operation.duration');
    const spinCalls = operations.find(
      (p) => p.attributes['mcp.method.name'] === 'tools/call' && p.attributes['gen_ai.tool.name'] === 'spin',
    );
    assert.ok(spinCalls, JSON.stringify(operations.map((p) => p.attributes)));
    assert.equal((spinCalls.value as { count: number }).count, 2);
    assert.ok((spinCalls.value as { sum: number }).sum >= 0.15);
    const runs = await points('weft.call.run.duration');
    const spinRuns = runs.find(
      (p) => p.attributes['gen_ai.tool.name'] === 'spin' && p.attributes['weft.outcome'] === 'ok',
    );
    assert.ok(spinRuns, 'a run-duration point for spin');
    assert.equal(spinRuns.attributes['weft.executor'], 'thread');
    assert.equal((spinRuns.value as { count: number }).count, 2);
    const waits = await points('weft.call.queue.duration');
    const spinWaits = waits.find((p) => p.attributes['gen_ai.tool.name'] === 'spin');
    // One of the two waited for the other (one thread): the waits add up to most of its run.
    assert.ok(spinWaits, 'a queue-duration point for spin');
    assert.ok((spinWaits.value as { sum: number }).sum >= 0.1, JSON.stringify(spinWaits));
    const outcomes = await points('weft.call.outcomes');
    const echoOk = outcomes.find(
      (p) => p.attributes['gen_ai.tool.name'] === 'echo' && p.attributes['weft.outcome'] === 'ok',
    );
    assert.equal(echoOk?.attributes['weft.executor'], 'inline');
    assert.ok(Number(echoOk?.value) >= 1);
    const inFlight = await points('weft.calls.in_flight');
    assert.ok(
      inFlight.every((p) => p.value === 0),
      'every call that began has ended',
    );
    const busy = await points('weft.pool.threads.busy');
    assert.deepEqual(
      busy.map((p) => p.value),
      [0],
    );
  });

  it("records a legacy session's duration when it closes", async () => {
    const before = (await points('mcp.server.session.duration')).reduce(
      (n, p) => n + (p.value as { count: number }).count,
      0,
    );
    const client = new InProcessClient(server);
    await client.initialize('2025-06-18');
    client.close();
    const sessions = await points('mcp.server.session.duration');
    const count = sessions.reduce((n, p) => n + (p.value as { count: number }).count, 0);
    assert.equal(count, before + 1);
    assert.ok(sessions.some((p) => p.attributes['mcp.protocol.version'] === '2025-06-18'));
  });

  it("makes a task's work its own trace, linked to the request that created it", async () => {
    const client = new InProcessClient(server);
    await client.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 't', version: '0' },
    });
    const created = await client.request('tools/call', { name: 'tasked', arguments: {}, task: {} }, 'task-1');
    const taskId = (created.result?.task as { taskId?: string } | undefined)?.taskId;
    assert.ok(taskId, JSON.stringify(created));
    const request = await spanEnded(
      'tools/call tasked',
      (s) => s.attributes['jsonrpc.request.id'] === 'task-1',
    );
    const task = await spanEnded('weft.task tasked', (s) => s.attributes['weft.task.id'] === taskId);
    assert.notEqual(task.spanContext().traceId, request.spanContext().traceId);
    assert.equal(task.parentSpanContext, undefined);
    assert.deepEqual(
      task.links.map((link) => link.context.spanId),
      [request.spanContext().spanId],
    );
    const run = await spanEnded('weft.run tasked', (s) => parentOf(s) === task.spanContext().spanId);
    assert.equal(run.attributes['weft.outcome'], 'ok');
  });

  it("links a 2026-07-28 task's work to the request that created it", async () => {
    const client = new InProcessClient(server);
    const capabilities = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
    const created = await client.request(
      'tools/call',
      {
        name: 'tasked',
        arguments: {},
        _meta: envelope({ 'io.modelcontextprotocol/clientCapabilities': capabilities }),
      },
      'modern-task-1',
    );
    assert.equal(created.result?.resultType, 'task', JSON.stringify(created));
    const taskId = created.result?.taskId as string;
    const request = await spanEnded(
      'tools/call tasked',
      (s) => s.attributes['jsonrpc.request.id'] === 'modern-task-1',
    );
    assert.equal(request.attributes['mcp.protocol.version'], '2026-07-28');
    const task = await spanEnded('weft.task tasked', (s) => s.attributes['weft.task.id'] === taskId);
    assert.notEqual(task.spanContext().traceId, request.spanContext().traceId);
    assert.deepEqual(
      task.links.map((link) => link.context.spanId),
      [request.spanContext().spanId],
    );
  });
});
