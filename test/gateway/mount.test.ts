/**
 * A weft gateway mounting three upstreams: a weft server of the same process (with a blocking
 * runaway, `spin`), the official SDK 1.x on stdio and the SDK v2 over HTTP. Proven through it:
 * exact publication, calls from weft/client and the official clients in both eras, a cancel and a
 * deadline that stop the upstream weft's thread, questions bridged across eras, and an upstream
 * that dies answering -32603 and coming back.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client as V2Client } from '@modelcontextprotocol/client';
import { Client as Sdk1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Sdk1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import spin from '../../examples/tools/spin.js';
import { connect, McpError } from '../../lib/client/index.js';
import { McpServer } from '../../lib/index.js';
import { startWeftUpstream, type WeftUpstream } from '../client/weft-upstream.js';
import { freePort } from '../support/free-port.js';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const text = (result: Record<string, unknown>) =>
  (result.content as { text?: string }[]).map((block) => block.text).join('|');

let upstream: WeftUpstream;
let v2: ChildProcess;
let gateway: McpServer;
let url: string;

async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

before(async () => {
  upstream = await startWeftUpstream({ pool: { maxThreads: 1 } });
  upstream.server.tool(spin);
  const port = await freePort();
  v2 = spawn(process.execPath, [here('../../benchmarks/peers/sdk-v2-server.js'), '--http', String(port)], {
    stdio: 'ignore',
  });
  const v2Url = `http://127.0.0.1:${port}/mcp`;
  for (let i = 0; i < 100; i++) {
    if (
      await fetch(v2Url, { method: 'POST', body: '{}' }).then(
        () => true,
        () => false,
      )
    )
      break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  gateway = new McpServer({ name: 'gateway', version: '0.0.0', timeoutMs: 20_000 });
  await gateway.mount(upstream.server, { namespace: 'w' });
  await gateway.mount(
    { command: process.execPath, args: [here('../client/sdk1-asking-server.js')] },
    { namespace: 's1' },
  );
  await gateway.mount(v2Url, { namespace: 'v2' });
  await gateway.listen({ http: { port: 0, host: '127.0.0.1' } });
  url = `http://127.0.0.1:${gateway.addresses.http?.port}/mcp`;
});
after(async () => {
  await gateway.close();
  await upstream.close();
  v2.kill();
});

describe('a gateway mounting weft, SDK 1.x stdio and SDK v2 HTTP', () => {
  test('publishes every upstream tool under its namespace, schemas verbatim, in name order', async () => {
    const client = await connect(url, { protocol: 'modern' });
    const tools = await client.listTools();
    const names = tools.map((tool) => tool.name);
    assert.deepEqual(names, [...names].sort());
    for (const name of ['w_spin', 'w_test_custom_headers', 's1_echo', 's1_ask_name', 'v2_echo']) {
      assert.ok(names.includes(name), `${name} in ${names.join()}`);
    }
    const direct = await connect(upstream.httpUrl, { protocol: 'modern' });
    const original = (await direct.listTools()).find((tool) => tool.name === 'test_custom_headers');
    const mounted = tools.find((tool) => tool.name === 'w_test_custom_headers');
    assert.deepEqual(mounted?.inputSchema, original?.inputSchema);
    await direct.close();
    await client.close();
  });

  for (const protocol of ['modern', 'legacy'] as const) {
    test(`weft/client (${protocol}) calls all three upstreams, headers mirrored through`, async () => {
      const client = await connect(url, { protocol });
      assert.equal(text(await client.callTool('s1_echo', { text: 'one' })), 'one');
      assert.equal(text(await client.callTool('v2_echo', { text: 'two' })), 'two');
      const routed = await client.callTool('w_test_custom_headers', { region: 'ü', priority: 1, query: 'q' });
      assert.equal(text(routed), 'region=ü priority=1 verbose=(absent) query=q');
      await client.close();
    });
  }

  test("an upstream's answer to bad arguments passes through unchanged (no local re-check)", async () => {
    const client = await connect(url, { protocol: 'modern' });
    const direct = await connect(upstream.httpUrl, { protocol: 'modern' });
    const through = await client.callTool('w_spin', { ms: 'soon' });
    const original = await direct.callTool('spin', { ms: 'soon' });
    assert.equal(through.isError, true);
    assert.deepEqual(through.content, original.content);
    await direct.close();
    await client.close();
  });

  test('the official SDK 1.x client (legacy) and v2 client (modern) through the gateway', async () => {
    const legacy = new Sdk1Client({ name: 'sdk1', version: '1.0.0' });
    await legacy.connect(new Sdk1Http(new URL(url)));
    const one = await legacy.callTool({ name: 'v2_echo', arguments: { text: 'from 1.x' } });
    assert.equal(text(one as never), 'from 1.x');
    await legacy.close();
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const modern = new V2Client({ name: 'v2', version: '1.0.0' }, {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    } as never);
    await modern.connect(new StreamableHTTPClientTransport(new URL(url)) as never);
    const two = await modern.callTool({ name: 's1_echo', arguments: { text: 'from v2' } });
    assert.equal(text(two as never), 'from v2');
    await modern.close();
  });

  for (const protocol of ['modern', 'legacy'] as const) {
    test(`a ${protocol} cancel sent to the gateway stops the upstream weft's blocking thread`, async () => {
      const client = await connect(url, { protocol });
      const controller = new AbortController();
      const call = client.callTool('w_spin', { ms: 1_800 }, { signal: controller.signal });
      await until(() => upstream.server.stats.freeThreads === 0, 'the spin to start');
      const started = Date.now();
      controller.abort(new Error('stop'));
      await assert.rejects(call, /stop/);
      await until(() => upstream.server.stats.freeThreads === 1, 'the thread to be freed');
      assert.ok(Date.now() - started < 1_500, 'freed well before the spin would have ended');
      await client.close();
    });
  }

  test("the gateway's deadline reaches the upstream: the call ends, the upstream thread is freed", async () => {
    const tight = new McpServer({ name: 'tight', version: '0.0.0', timeoutMs: 300 });
    await tight.mount(upstream.server);
    await tight.listen({ http: { port: 0, host: '127.0.0.1' } });
    const client = await connect(`http://127.0.0.1:${tight.addresses.http?.port}/mcp`, {
      protocol: 'modern',
    });
    const started = Date.now();
    const result = await client.callTool('spin', { ms: 1_900 });
    assert.equal(result.isError, true);
    assert.match(text(result), /300 ms|deadline/);
    assert.ok(Date.now() - started < 1_500);
    await until(() => upstream.server.stats.freeThreads === 1, 'the upstream thread to be freed');
    await client.close();
    await tight.close();
  });

  test('a legacy client answers a modern upstream question; a modern client gets it passed through', async () => {
    const onElicitation = async () => ({
      action: 'accept' as const,
      content: { username: 'lin', name: 'lin' },
    });
    for (const protocol of ['legacy', 'modern'] as const) {
      const client = await connect(url, { protocol, onElicitation });
      const result = await client.callTool('w_test_input_required_result_elicitation');
      assert.equal(result.isError, undefined, text(result));
      assert.match(text(result), /lin|accept/);
      await client.close();
    }
  });

  test('a legacy upstream asks a legacy client through the gateway', async () => {
    const client = await connect(url, {
      protocol: 'legacy',
      onElicitation: async () => ({ action: 'accept', content: { name: 'kim' } }),
    });
    assert.equal(text(await client.callTool('s1_ask_name')), 'hello kim (accept)');
    await client.close();
  });

  test("a tool added upstream reaches the gateway's listing and its clients' list_changed", async () => {
    const client = await connect(url, { protocol: 'legacy' });
    let changed = 0;
    client.on('notifications/tools/list_changed', () => changed++);
    upstream.server.tool({
      name: 'added_later',
      description: 'Registered after the mount',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      handler: () => 'late but here',
    });
    await until(() => changed > 0, "the gateway's list_changed");
    assert.equal(text(await client.callTool('w_added_later')), 'late but here');
    upstream.server.removeTool('added_later');
    await until(() => changed > 1, 'the removal');
    await assert.rejects(client.callTool('w_added_later'), /Unknown tool/);
    await client.close();
  });

  test('an upstream that dies answers -32603 saying so, and comes back', async () => {
    const client = await connect(url, { protocol: 'modern' });
    await client.callTool('s1_die');
    await new Promise((resolve) => setTimeout(resolve, 100));
    await assert.rejects(client.callTool('s1_echo', { text: 'x' }), (error: unknown) => {
      assert.ok(error instanceof McpError);
      assert.equal(error.code, -32603);
      // Named by its namespace, never by its command line.
      assert.match(error.message, /the mount "s1"/);
      assert.doesNotMatch(error.message, /sdk1-asking-server/);
      return true;
    });
    let answer = '';
    for (let i = 0; i < 100 && answer !== 'back'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      answer = await client.callTool('s1_echo', { text: 'back' }).then(text, () => '');
    }
    assert.equal(answer, 'back');
    await client.close();
  });
});
