/**
 * Tasks through a gateway. A weft gateway mounts the conformance server (spawned, over stdio, no
 * namespace) and serves HTTP; a modern caller that declares the tasks extension gets the
 * upstream's own task (the gateway forwards it rather than running a task of its own), and its
 * tasks/get, tasks/update and tasks/cancel reach that upstream. The SDK 1.x client's 2025-11-25 task is bridged: the gateway asks the upstream for a modern task
 * and shows it the legacy way (legacy-task-bridge.ts). A caller that asks for no task gets the
 * call run to its result.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from '@modelcontextprotocol/client';
import { Client as Sdk1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Sdk1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { connect, McpError } from '../../lib/client/index.js';
import { McpServer } from '../../lib/index.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const upstreamEntry = fileURLToPath(new URL('../../examples/conformance-server.js', import.meta.url));
const text = (result: Record<string, unknown>) =>
  (result.content as { text?: string }[]).map((block) => block.text).join('|');

let gateway: McpServer;
let url: string;

before(async () => {
  gateway = new McpServer({ name: 'tasks-gateway', version: '0.0.0', timeoutMs: 20_000, logError: () => {} });
  await gateway.mount({ command: process.execPath, args: [upstreamEntry, '--stdio'] });
  await gateway.listen({ http: { port: 0 } });
  url = `http://127.0.0.1:${gateway.addresses.http?.port}/mcp`;
});
after(() => gateway.close());

/** One raw 2026-07-28 request to the gateway, declaring `capabilities`. */
async function modern(method: string, params: Record<string, unknown>, capabilities: object) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      // Mcp-Name mirrors the tool's name, or a tasks/* request's taskId.
      ...(typeof (params.name ?? params.taskId) === 'string'
        ? { 'mcp-name': String(params.name ?? params.taskId) }
        : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': capabilities,
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
        },
      },
    }),
  });
  const body = await response.text();
  const json = body.startsWith('{')
    ? JSON.parse(body)
    : JSON.parse(
        body
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .at(-1) ?? '{}',
      );
  return json as { result?: Record<string, unknown>; error?: { code: number; message: string } };
}

/** Drains a callToolStream: the messages it yielded, in order. */
async function drain(stream: AsyncGenerator<{ type: string } & Record<string, unknown>>) {
  const messages: ({ type: string } & Record<string, unknown>)[] = [];
  for await (const message of stream) messages.push(message);
  return messages;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > end) assert.fail(`timed out; last ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('tasks through a gateway', () => {
  test('server/discover offers the tasks extension for the mounted task tools', async () => {
    const { result } = await modern('server/discover', {}, {});
    const extensions = (result?.capabilities as { extensions?: Record<string, unknown> } | undefined)
      ?.extensions;
    assert.ok(extensions?.[TASKS], JSON.stringify(result?.capabilities));
  });

  test("weft/client (modern, tasks) gets the upstream's task and follows it to its result", async () => {
    const client = await connect(url, { protocol: 'modern', tasks: true });
    try {
      let created: Record<string, unknown> | undefined;
      const result = await client.callTool(
        'slow_compute',
        { seconds: 0.2, label: 'via-gateway' },
        { onTaskCreated: (task) => (created = task) },
      );
      assert.equal(typeof created?.taskId, 'string');
      assert.equal(text(result), 'Computed via-gateway after 0.2s');
    } finally {
      await client.close();
    }
  });

  test("the created task is the upstream's, polled, cancelled and read back through the gateway", async () => {
    const caps = { extensions: { [TASKS]: {} } };
    const created = await modern('tools/call', { name: 'slow_compute', arguments: { seconds: 60 } }, caps);
    assert.equal(created.result?.resultType, 'task', JSON.stringify(created));
    assert.equal(created.result?.status, 'working');
    assert.equal(typeof created.result?.ttlMs, 'number');
    const taskId = created.result?.taskId as string;
    const got = await modern('tasks/get', { taskId }, caps);
    assert.equal(got.result?.taskId, taskId);
    assert.equal(got.result?.status, 'working');
    const cancelled = await modern('tasks/cancel', { taskId }, caps);
    assert.deepEqual(
      Object.keys(cancelled.result ?? {}).filter((key) => key !== 'resultType' && key !== '_meta'),
      [],
    );
    await until(
      () => modern('tasks/get', { taskId }, caps),
      (reply) => reply.result?.status === 'cancelled',
    );
    // Without the extension the gateway's own gate answers, as for a local task.
    assert.equal((await modern('tasks/get', { taskId }, {})).error?.code, -32021);
    // An id no upstream gave is unknown to the gateway.
    assert.equal((await modern('tasks/get', { taskId: 'no-such-task' }, caps)).error?.code, -32602);
  });

  test("a task's input_required is the upstream's, answered with tasks/update through the gateway", async () => {
    const caps = { extensions: { [TASKS]: {} }, elicitation: {} };
    const created = await modern(
      'tools/call',
      { name: 'confirm_delete', arguments: { filename: 'a.txt' } },
      caps,
    );
    assert.equal(created.result?.resultType, 'task', JSON.stringify(created));
    const taskId = created.result?.taskId as string;
    const asking = await until(
      () => modern('tasks/get', { taskId }, caps),
      (reply) => reply.result?.status === 'input_required',
    );
    const [key] = Object.keys(asking.result?.inputRequests as object);
    assert.ok(key);
    const updated = await modern(
      'tasks/update',
      { taskId, inputResponses: { [key]: { action: 'accept', content: { confirm: true } } } },
      caps,
    );
    assert.equal(updated.error, undefined, JSON.stringify(updated));
    const done = await until(
      () => modern('tasks/get', { taskId }, caps),
      (reply) => ['completed', 'failed'].includes(reply.result?.status as string),
    );
    assert.equal(done.result?.status, 'completed', JSON.stringify(done));
  });

  test("a task-only mounted tool refuses a modern caller without the extension with the upstream's -32021", async () => {
    const reply = await modern('tools/call', { name: 'failing_job', arguments: {} }, {});
    assert.equal(reply.error?.code, -32021, JSON.stringify(reply));
  });

  test('weft/client without the extension: the optional task tool runs to its result', async () => {
    const client = await connect(url, { protocol: 'modern' });
    try {
      const result = await client.callTool('slow_compute', { seconds: 0 });
      assert.equal(text(result), 'Computed result after 0s');
    } catch (error) {
      assert.fail(error instanceof McpError ? `${error.code} ${error.message}` : String(error));
    } finally {
      await client.close();
    }
  });

  test("the SDK 1.x client's legacy task on the modern upstream: created, streamed to its result, read back", async () => {
    const sdk1 = new Sdk1Client({ name: 'sdk1-tasks', version: '0' });
    await sdk1.connect(new Sdk1Http(new URL(url)));
    try {
      assert.ok(sdk1.getServerCapabilities()?.tasks?.requests?.tools?.call);
      const messages = await drain(
        sdk1.experimental.tasks.callToolStream(
          { name: 'slow_compute', arguments: { seconds: 0.2, label: 'legacy' } },
          undefined,
          { task: { ttl: 60_000 } },
        ) as never,
      );
      assert.equal(messages[0]?.type, 'taskCreated', JSON.stringify(messages));
      const last = messages.at(-1);
      assert.equal(last?.type, 'result', JSON.stringify(last));
      assert.equal(text(last?.result as Record<string, unknown>), 'Computed legacy after 0.2s');
      const taskId = String((messages[0]?.task as { taskId?: string } | undefined)?.taskId);
      const task = await sdk1.experimental.tasks.getTask(taskId);
      assert.equal(task.status, 'completed');
      assert.equal(typeof task.ttl, 'number');
      // Terminal: the legacy era refuses its cancel.
      await assert.rejects(
        sdk1.experimental.tasks.cancelTask(taskId),
        (error: { code?: number }) => error.code === -32602,
      );
    } finally {
      await sdk1.close();
    }
  });

  test("a bridged task's question reaches the SDK 1.x client live during tasks/result, and its answer the upstream", async () => {
    const sdk1 = new Sdk1Client({ name: 'sdk1-asked', version: '0' }, { capabilities: { elicitation: {} } });
    const asked: string[] = [];
    sdk1.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(String(request.params.message));
      return { action: 'accept', content: { confirm: true } };
    });
    await sdk1.connect(new Sdk1Http(new URL(url)));
    try {
      const messages = await drain(
        sdk1.experimental.tasks.callToolStream(
          { name: 'confirm_delete', arguments: { filename: 'b.txt' } },
          undefined,
          { task: {} },
        ) as never,
      );
      assert.equal(messages[0]?.type, 'taskCreated', JSON.stringify(messages));
      const last = messages.at(-1);
      assert.equal(last?.type, 'result', JSON.stringify(last));
      assert.equal(text(last?.result as Record<string, unknown>), 'Deleted b.txt');
      assert.deepEqual(asked, ['Delete b.txt?']);
    } finally {
      await sdk1.close();
    }
  });

  test('the SDK 1.x client cancels a bridged task; another session does not see it', async () => {
    const sdk1 = new Sdk1Client({ name: 'sdk1-cancel', version: '0' });
    await sdk1.connect(new Sdk1Http(new URL(url)));
    const other = new Sdk1Client({ name: 'sdk1-other', version: '0' });
    await other.connect(new Sdk1Http(new URL(url)));
    try {
      const stream = sdk1.experimental.tasks.callToolStream(
        { name: 'slow_compute', arguments: { seconds: 60 } },
        undefined,
        { task: {} },
      );
      const first = (await stream.next()).value as { type: string; task: { taskId: string } };
      assert.equal(first.type, 'taskCreated');
      const { taskId } = first.task;
      await assert.rejects(
        other.experimental.tasks.getTask(taskId),
        (error: { code?: number }) => error.code === -32602,
      );
      const cancelled = await sdk1.experimental.tasks.cancelTask(taskId);
      assert.equal(cancelled.status, 'cancelled');
      await stream.return(undefined);
      assert.equal((await sdk1.experimental.tasks.getTask(taskId)).status, 'cancelled');
    } finally {
      await sdk1.close();
      await other.close();
    }
  });

  test("the official clients (2025-11-25, plain calls) get the mounted task tool's result", async () => {
    const sdk1 = new Sdk1Client({ name: 'sdk1', version: '0' });
    await sdk1.connect(new Sdk1Http(new URL(url)));
    const v2 = new V2Client({ name: 'v2', version: '0' });
    await v2.connect(new V2Http(new URL(url)));
    try {
      const one = await sdk1.callTool({ name: 'slow_compute', arguments: { seconds: 0, label: 'sdk1' } });
      assert.equal(text(one as Record<string, unknown>), 'Computed sdk1 after 0s');
      const two = await v2.callTool({ name: 'slow_compute', arguments: { seconds: 0, label: 'v2' } });
      assert.equal(text(two as Record<string, unknown>), 'Computed v2 after 0s');
    } finally {
      await sdk1.close();
      await v2.close();
    }
  });
});
