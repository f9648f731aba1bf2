import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addDemoTools } from '../../examples/demo-tools.js';
import { McpServer } from '../../lib/index.js';
import { InProcessClient } from '../support/in-process-client.js';

const server = addDemoTools(
  new McpServer({ name: 'router-test', version: '1', pageSize: 3, pool: { maxThreads: 2 } }),
);
server
  .tool({
    name: 'structured',
    inputSchema: { type: 'object', properties: { bad: { type: 'boolean' } } },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
    handler: ({ bad }) => (bad ? ({ sum: 'not a number' } as never) : { sum: 3 }),
  })
  .tool({
    name: 'full_result',
    inputSchema: { type: 'object' },
    handler: () => ({ content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] }),
  });
const expectedNames = [
  'compress',
  'echo',
  'fib',
  'full_result',
  'hash_chain',
  'primes',
  'regex_search',
  'spin',
  'structured',
  'wait',
];

let client: InProcessClient;
before(async () => {
  client = new InProcessClient(server);
  await client.initialize();
});
after(() => server.close());

describe('initialize', () => {
  it('negotiates: echoes a supported version, offers the latest for an unknown one', async () => {
    const other = new InProcessClient(server);
    const old = await other.request('initialize', { protocolVersion: '2024-11-05', capabilities: {} });
    assert.equal(old.result?.protocolVersion, '2024-11-05');
    const future = await other.request('initialize', { protocolVersion: '2031-01-01', capabilities: {} });
    assert.equal(future.result?.protocolVersion, '2025-11-25');
    assert.deepEqual(future.result?.capabilities, { tools: { listChanged: true }, logging: {} });
    assert.deepEqual(future.result?.serverInfo, { name: 'router-test', version: '1' });
    other.close();
  });

  it('answers ping with an empty result', async () => {
    assert.deepEqual((await client.request('ping')).result, {});
  });
});

describe('tools/list', () => {
  it('lists every tool in name order across pages, with stable cursors', async () => {
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const reply = await client.request('tools/list', cursor ? { cursor } : {});
      const result = reply.result as { tools: { name: string }[]; nextCursor?: string };
      assert.ok(result.tools.length <= 3);
      names.push(...result.tools.map((tool) => tool.name));
      cursor = result.nextCursor;
      pages++;
    } while (cursor);
    assert.deepEqual(names, expectedNames);
    assert.equal(pages, 4);
    const again = await client.request('tools/list', {});
    const firstPage = (again.result as { tools: { name: string }[] }).tools.map((tool) => tool.name);
    assert.deepEqual(firstPage, expectedNames.slice(0, 3));
  });

  it('publishes schemas exactly as written', async () => {
    const reply = await client.request('tools/list', {});
    const compress = (reply.result as { tools: { name: string; inputSchema: unknown }[] }).tools[0]!;
    assert.equal(compress.name, 'compress');
    assert.deepEqual(compress.inputSchema, {
      type: 'object',
      properties: {
        text: { type: 'string', maxLength: 8_000_000 },
        repeat: {
          type: 'integer',
          minimum: 1,
          maximum: 1000,
          default: 1,
          description: 'Repeat the text n times',
        },
        quality: { type: 'integer', minimum: 0, maximum: 11, default: 11 },
      },
      required: ['text'],
      additionalProperties: false,
    });
  });

  it('answers a cursor that does not decode with -32602', async () => {
    for (const cursor of ['garbage!', 'e30', 42, '']) {
      const reply = await client.request('tools/list', { cursor });
      assert.equal(reply.error?.code, -32602, String(cursor));
    }
  });
});

describe('tools/call', () => {
  it('answers an unknown tool with -32602', async () => {
    const reply = await client.callTool('no_such_tool', {});
    assert.equal(reply.error?.code, -32602);
    assert.match(reply.error?.message ?? '', /Unknown tool: no_such_tool/);
  });

  it('validates arguments: integer refuses 1.5 and "twenty", accepts 1.0', async () => {
    for (const n of [1.5, 'twenty']) {
      const reply = await client.callTool('fib', { n });
      assert.equal(reply.result?.isError, true);
      assert.match(reply.result?.content?.[0]?.text ?? '', /"n" must be of type integer/);
    }
    const missing = await client.callTool('fib', {});
    assert.match(missing.result?.content?.[0]?.text ?? '', /missing required property "n"/);
    const ok = await client.callTool('fib', { n: 1.0 });
    assert.deepEqual(ok.result?.structuredContent, { n: 1, value: 1 });
  });

  it('shapes results: a string becomes a text block', async () => {
    const reply = await client.callTool('echo', { text: 'hello' });
    assert.deepEqual(reply.result, { content: [{ type: 'text', text: 'hello' }] });
  });

  it('shapes results: a value with an outputSchema becomes structuredContent plus JSON text', async () => {
    const reply = await client.callTool('structured', {});
    assert.deepEqual(reply.result, {
      content: [{ type: 'text', text: '{"sum":3}' }],
      structuredContent: { sum: 3 },
    });
    const bad = await client.callTool('structured', { bad: true });
    assert.equal(bad.result?.isError, true);
    assert.match(bad.result?.content?.[0]?.text ?? '', /does not match its outputSchema/);
  });

  it('passes a full CallToolResult through', async () => {
    const reply = await client.callTool('full_result', {});
    assert.deepEqual(reply.result, { content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] });
  });

  it('refuses a second request that reuses an id still in flight', async () => {
    const start = client.received.length;
    client.send({
      jsonrpc: '2.0',
      id: 'dup',
      method: 'tools/call',
      params: { name: 'wait', arguments: { ms: 200 } },
    });
    const before = client.received.length;
    client.send({ jsonrpc: '2.0', id: 'dup', method: 'ping' });
    const refusal = client.received[before] as { id?: unknown; error?: { code: number; message: string } };
    assert.equal(refusal.id, 'dup');
    assert.equal(refusal.error?.code, -32600);
    assert.match(refusal.error?.message ?? '', /already in flight/);
    const answer = await client.waitFor(
      (message) => client.received.indexOf(message) > before && 'id' in message && message.id === 'dup',
    );
    assert.deepEqual((answer as { result?: unknown }).result, {
      content: [{ type: 'text', text: 'waited 200 ms' }],
    });
    assert.equal(before, start, 'nothing was answered before the duplicate arrived');
  });
});

describe('JSON-RPC envelope', () => {
  it('answers unknown methods with -32601 and invalid requests with -32600', async () => {
    assert.equal((await client.request('no/such/method')).error?.code, -32601);
    const before = client.received.length;
    client.send({ jsonrpc: '2.0', id: 'bad', method: 7 });
    const reply = client.received.slice(before).find((message) => 'id' in message && message.id === 'bad');
    assert.equal((reply as { error?: { code: number } }).error?.code, -32600);
  });

  it('refuses batches outside 2025-03-26 and answers them inside it', async () => {
    const before = client.received.length;
    await client.send([{ jsonrpc: '2.0', id: 'b1', method: 'ping' }]);
    assert.equal((client.received[before] as { error?: { code: number } }).error?.code, -32600);

    const legacy = new InProcessClient(server);
    await legacy.initialize('2025-03-26');
    await legacy.send([
      { jsonrpc: '2.0', id: 'b1', method: 'ping' },
      { jsonrpc: '2.0', id: 'b2', method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } },
    ]);
    assert.equal(legacy.batches.length, 1, 'the batch is answered with one array');
    assert.deepEqual(legacy.batches[0]!.map((reply) => (reply as { id: string }).id).sort(), ['b1', 'b2']);
    legacy.close();
  });

  it('logging/setLevel accepts syslog levels and refuses others with -32602', async () => {
    assert.deepEqual((await client.request('logging/setLevel', { level: 'warning' })).result, {});
    assert.equal((await client.request('logging/setLevel', { level: 'loud' })).error?.code, -32602);
    await client.request('logging/setLevel', { level: 'debug' });
  });
});
