/**
 * Tasks in the 2026-07-28 era, in process: a task's cancel terminates the thread running it and
 * nothing later changes the status; input during a task (input_required, answered by tasks/update)
 * holds no thread; a deadline ends a task like a call; ttlMs expiry; the extension's gate (-32021)
 * and the methods it removed (-32601).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { McpServer } from '../../lib/index.js';
import { envelope } from '../router/modern-fixtures.js';
import { InProcessClient, type Reply } from '../support/in-process-client.js';
import { until } from '../support/until.js';
import { askTask, shortDeadline, spinProcess, spinTask } from './task-tools.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const WITH_TASKS = { extensions: { [TASKS]: {} }, elicitation: {} };

function build(options: { ttlMs?: number } = {}): McpServer {
  const server = new McpServer({
    name: 'weft-tasks',
    version: '1.0.0',
    pool: { maxThreads: 2, graceMs: 50 },
    logError: () => {},
    tasks: { pollIntervalMs: 250, ...options },
  });
  return server.tool(spinTask).tool(askTask).tool(shortDeadline).tool(spinProcess);
}

const servers: McpServer[] = [];
after(() => Promise.all(servers.map((server) => server.close())));

function modernClient(options?: { ttlMs?: number }) {
  const server = build(options);
  servers.push(server);
  const client = new InProcessClient(server);
  const call = (method: string, params: Record<string, unknown> = {}, capabilities: object = WITH_TASKS) =>
    client.request(method, {
      ...params,
      _meta: envelope({ 'io.modelcontextprotocol/clientCapabilities': capabilities }),
    });
  return { server, call, client };
}

function result(reply: Reply): Record<string, unknown> {
  assert.equal(reply.error, undefined, `expected a result, got ${JSON.stringify(reply.error)}`);
  return reply.result as Record<string, unknown>;
}

describe('modern tasks', () => {
  it('advertises the extension in server/discover and not the legacy tasks slot', async () => {
    const { call } = modernClient();
    const capabilities = result(await call('server/discover')).capabilities as Record<string, unknown>;
    assert.deepEqual((capabilities.extensions as Record<string, unknown>)[TASKS], {});
    assert.equal(capabilities.tasks, undefined);
  });

  it('answers a spinning call with a task at once; tasks/cancel ends it cancelled and frees the thread', async () => {
    const { server, call } = modernClient();
    const created = result(await call('tools/call', { name: 'spin', arguments: { ms: 600_000 } }));
    assert.equal(created.resultType, 'task');
    assert.equal(created.status, 'working');
    assert.equal(created.pollIntervalMs, 250);
    assert.equal(typeof created.ttlMs, 'number');
    const taskId = created.taskId as string;
    await until(
      async () => server.stats.freeThreads,
      (free) => free < 2,
    );
    const working = result(await call('tasks/get', { taskId }));
    assert.equal(working.status, 'working');
    assert.equal(working.resultType, 'complete');

    const cancelledAt = Date.now();
    assert.deepEqual(Object.keys(result(await call('tasks/cancel', { taskId }))).sort(), [
      '_meta',
      'resultType',
    ]);
    await until(
      async () => server.stats.freeThreads,
      (free) => free === 2,
      1_000,
    );
    assert.ok(Date.now() - cancelledAt < 1_000, 'the thread was terminated within a second');
    assert.equal(result(await call('tasks/get', { taskId })).status, 'cancelled');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const later = result(await call('tasks/get', { taskId }));
    assert.equal(later.status, 'cancelled');
    assert.equal(later.result, undefined);
    // Cancelling a terminal task is acknowledged all the same.
    assert.equal(result(await call('tasks/cancel', { taskId })).resultType, 'complete');
  });

  it('kills the pool process running a task with process isolation when the task is cancelled', async () => {
    const { call } = modernClient();
    const pidFile = join(mkdtempSync(join(tmpdir(), 'weft-task-')), 'pid');
    const { taskId } = result(
      await call('tools/call', { name: 'spin_process', arguments: { pidFile, ms: 600_000 } }),
    );
    await until(async () => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '', Boolean, 15_000);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    assert.ok(alive());
    await call('tasks/cancel', { taskId });
    await until(
      async () => alive(),
      (running) => !running,
      1_500,
    );
    assert.equal(result(await call('tasks/get', { taskId })).status, 'cancelled');
  });

  it('waits input_required without a thread, then finishes with the answer given by tasks/update', async () => {
    const { server, call } = modernClient();
    const { taskId } = result(await call('tools/call', { name: 'ask', arguments: {} }));
    const waiting = await until(
      async () => result(await call('tasks/get', { taskId })),
      (task) => task.status === 'input_required',
    );
    const requests = waiting.inputRequests as Record<string, { method: string }>;
    assert.deepEqual(Object.keys(requests), ['word']);
    assert.equal(requests.word!.method, 'elicitation/create');
    assert.equal(server.stats.freeThreads, 2, 'no thread is held while the task waits');
    const ack = result(
      await call('tasks/update', {
        taskId,
        inputResponses: { word: { action: 'accept', content: { word: 'weft' } } },
      }),
    );
    assert.equal(ack.resultType, 'complete');
    const done = await until(
      async () => result(await call('tasks/get', { taskId })),
      (task) => task.status === 'completed',
    );
    assert.deepEqual((done.result as { content: unknown[] }).content, [
      { type: 'text', text: 'you said weft' },
    ]);
    assert.equal(done.inputRequests, undefined);
  });

  it("ends a task at its tool's deadline: completed with an isError result, the thread stopped", async () => {
    const { server, call } = modernClient();
    const { taskId } = result(await call('tools/call', { name: 'short_deadline', arguments: {} }));
    const done = await until(
      async () => result(await call('tasks/get', { taskId })),
      (task) => task.status !== 'working',
    );
    assert.equal(done.status, 'completed');
    assert.equal((done.result as { isError?: boolean }).isError, true);
    await until(
      async () => server.stats.freeThreads,
      (free) => free === 2,
      2_000,
    );
  });

  it('forgets a task after ttlMs: tasks/get is -32602 from then on', async () => {
    const { call } = modernClient({ ttlMs: 400 });
    const created = result(await call('tools/call', { name: 'spin', arguments: { ms: 10 } }));
    assert.equal(created.ttlMs, 400);
    assert.equal(result(await call('tasks/get', { taskId: created.taskId })).taskId, created.taskId);
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.equal((await call('tasks/get', { taskId: created.taskId })).error?.code, -32602);
  });

  it('gates on the extension: -32021 for the methods and task-only tools, sync calls for optional ones', async () => {
    const { call } = modernClient();
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const reply = await call(method, { taskId: 'x', inputResponses: {} }, {});
      assert.equal(reply.error?.code, -32021, method);
    }
    const required = await call('tools/call', { name: 'short_deadline', arguments: {} }, {});
    assert.equal(required.error?.code, -32021);
    assert.match(required.error!.message, /short_deadline/);
    const sync = result(await call('tools/call', { name: 'spin', arguments: { ms: 5 } }, {}));
    assert.equal(sync.resultType, 'complete');
    assert.match((sync.content as { text: string }[])[0]!.text, /^spun 5 ms/);
  });

  it('sends notifications/tasks with the detailed task to a listen stream that named it', async () => {
    const { call, client } = modernClient();
    const { taskId } = result(await call('tools/call', { name: 'ask', arguments: {} }));
    client.send({
      jsonrpc: '2.0',
      id: 'listen-tasks',
      method: 'subscriptions/listen',
      params: { notifications: { taskIds: [taskId] }, _meta: envelope() },
    });
    const ack = (await client.waitFor(
      (message) => 'method' in message && message.method === 'notifications/subscriptions/acknowledged',
    )) as unknown as { params: { notifications: { taskIds?: string[] } } };
    assert.deepEqual(ack.params.notifications.taskIds, [taskId]);
    const statusOf = (wanted: string) => (message: unknown) => {
      const m = message as { method?: string; params?: { taskId?: string; status?: string } };
      return m.method === 'notifications/tasks' && m.params?.taskId === taskId && m.params?.status === wanted;
    };
    const waiting = (await client.waitFor(statusOf('input_required'))) as unknown as {
      params: { inputRequests: Record<string, unknown>; _meta: Record<string, unknown> };
    };
    assert.deepEqual(Object.keys(waiting.params.inputRequests), ['word']);
    assert.equal(waiting.params._meta['io.modelcontextprotocol/subscriptionId'], 'listen-tasks');
    await call('tasks/update', {
      taskId,
      inputResponses: { word: { action: 'accept', content: { word: 'x' } } },
    });
    const done = (await client.waitFor(statusOf('completed'))) as unknown as { params: { result: unknown } };
    assert.deepEqual(done.params.result, { content: [{ type: 'text', text: 'you said x' }] });
    client.notify('notifications/cancelled', { requestId: 'listen-tasks' });
  });

  it('answers -32601 for the removed tasks/result and tasks/list, and -32602 for an unknown task', async () => {
    const { call } = modernClient();
    assert.equal((await call('tasks/result', { taskId: 'x' })).error?.code, -32601);
    assert.equal((await call('tasks/list', {})).error?.code, -32601);
    assert.equal((await call('tasks/get', { taskId: 'no-such-task' })).error?.code, -32602);
  });
});
