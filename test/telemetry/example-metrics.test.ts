/**
 * examples/telemetry.ts as an operator runs it: a child process with the Node SDK, called by the
 * official client (a blocking call, an inline one), its /metrics scraped over HTTP for weft's
 * metrics in Prometheus form, and its OTLP trace exports caught by a local receiver (127.0.0.1).
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { freePort } from '../support/free-port.js';
import { startReadyChild } from '../support/ready-child.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/telemetry.js', import.meta.url));

/** An OTLP/HTTP receiver that keeps what was posted to it (path and body size). */
function otlpReceiver(): Promise<{ server: Server; posts: Array<{ path: string; bytes: number }> }> {
  const posts: Array<{ path: string; bytes: number }> = [];
  const server = createServer((request, response) => {
    let bytes = 0;
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    request.on('end', () => {
      if (request.method === 'POST') posts.push({ path: request.url ?? '', bytes });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, posts })));
}

/** Starts the example and waits for the line that names its MCP URL. */
async function startExample(
  env: Record<string, string>,
  args: string[],
): Promise<{ child: ChildProcess; url: URL }> {
  const { child, ready } = await startReadyChild([EXAMPLE, ...args], {
    name: 'the example',
    env,
    timeoutMs: 15_000,
    ready: (output) => /MCP at (\S+),/.exec(output),
  });
  return { child, url: new URL(ready[1]!) };
}

/** The sample lines of a Prometheus text exposition, as name, labels and value. */
function samples(text: string): Array<{ name: string; labels: Record<string, string>; value: number }> {
  const found: Array<{ name: string; labels: Record<string, string>; value: number }> = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]!] = pair[2]!;
    // Exporters differ on the unit suffix (`_seconds`); the 0.2xx line leaves it off.
    found.push({ name: match[1]!.replace(/_seconds(?=_)/, ''), labels, value: Number(match[3]) });
  }
  return found;
}

describe('examples/telemetry.ts', () => {
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  let child: ChildProcess;
  let url: URL;
  let metricsUrl: string;

  before(async () => {
    receiver = await otlpReceiver();
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    ({ child, url } = await startExample(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}`,
        // Spans are batched; a short delay lets the test see an export without waiting 5 s.
        OTEL_BSP_SCHEDULE_DELAY: '200',
      },
      ['--http', '0', '--metrics-port', String(metricsPort)],
    ));
  });
  after(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    receiver?.server.close();
  });

  it("serves weft's metrics on /metrics after a blocking and an inline call", async () => {
    const client = new Client({ name: 'telemetry-example-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url));
    try {
      const blocking = await client.callTool({ name: 'fib', arguments: { n: 20 } });
      assert.deepEqual(blocking.structuredContent, { n: 20, value: 6765 });
      const inline = await client.callTool({ name: 'greet', arguments: { who: 'ada' } });
      assert.deepEqual(inline.content, [{ type: 'text', text: 'Hello, ada' }]);
    } finally {
      await client.close();
    }
    const response = await fetch(metricsUrl);
    assert.equal(response.status, 200);
    const all = samples(await response.text());
    const find = (name: string, labels: Record<string, string>) =>
      all.find(
        (sample) =>
          sample.name === name &&
          Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
      );
    const names = [...new Set(all.map((sample) => sample.name))].join(', ');

    for (const tool of ['fib', 'greet']) {
      const operations = find('mcp_server_operation_duration_count', {
        mcp_method_name: 'tools/call',
        gen_ai_tool_name: tool,
        gen_ai_operation_name: 'execute_tool',
        network_transport: 'tcp',
        network_protocol_name: 'http',
      });
      assert.equal(operations?.value, 1, `one tools/call ${tool} measured; metrics: ${names}`);
      assert.ok(operations.labels.mcp_protocol_version, 'the version the client negotiated');
    }
    assert.ok(find('mcp_server_operation_duration_bucket', { mcp_method_name: 'initialize', le: '+Inf' }));
    const ran = find('weft_call_run_duration_count', {
      gen_ai_tool_name: 'fib',
      weft_executor: 'thread',
      weft_outcome: 'ok',
    });
    assert.equal(ran?.value, 1, `fib's run on a thread; metrics: ${names}`);
    assert.equal(find('weft_call_queue_duration_count', { gen_ai_tool_name: 'fib' })?.value, 1);
    assert.equal(
      find('weft_call_outcomes_total', {
        gen_ai_tool_name: 'greet',
        weft_executor: 'inline',
        weft_outcome: 'ok',
      })?.value,
      1,
      `greet's outcome counted; metrics: ${names}`,
    );
    assert.equal(find('weft_pool_threads_busy', {})?.value, 0);
  });

  it('exports the traces over OTLP/HTTP to the configured endpoint', async () => {
    const deadline = Date.now() + 10_000;
    while (!receiver.posts.some((post) => post.path === '/v1/traces') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const traces = receiver.posts.filter((post) => post.path === '/v1/traces');
    assert.ok(traces.length > 0, `posts received: ${JSON.stringify(receiver.posts)}`);
    assert.ok(traces.every((post) => post.bytes > 0));
  });
});
