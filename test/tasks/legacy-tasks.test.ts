/**
 * Tasks in the 2025-11-25 era with the official 1.x client's experimental tasks API
 * (`client.experimental.tasks`) over Streamable HTTP: a task-augmented call streamed to its result,
 * tasks/get and tasks/list (paged, by id), a cancel that terminates the spinning thread and is
 * final (a second cancel is -32602), input during a task through related-task requests, and a
 * deadline that leaves the task failed with its isError result.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  TaskStatusNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { McpServer } from '../../lib/index.js';
import { until } from '../support/until.js';
import { askTask, shortDeadline, spinTask } from './task-tools.js';

const RELATED_TASK = 'io.modelcontextprotocol/related-task';

const server = new McpServer({
  name: 'weft-legacy-tasks',
  version: '1.0.0',
  pageSize: 2,
  pool: { maxThreads: 2, graceMs: 50 },
  logError: () => {},
  tasks: { pollIntervalMs: 100 },
});
server.tool(spinTask).tool(askTask).tool(shortDeadline);

let client: Client;
const elicitations: Record<string, unknown>[] = [];
const statusNotes: { taskId: string; status: string }[] = [];

before(async () => {
  await server.listen({ http: { port: 0 }, handleSignals: false });
  client = new Client({ name: 'weft-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    elicitations.push(request.params as Record<string, unknown>);
    return { action: 'accept', content: { word: 'loom' } };
  });
  client.setNotificationHandler(TaskStatusNotificationSchema, (note) => {
    statusNotes.push(note.params as { taskId: string; status: string });
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.addresses.http!.port}/mcp`)),
  );
});
after(async () => {
  await client.close();
  await server.close();
});

/** Drains a callToolStream: the messages it yielded, in order. */
async function drain(stream: AsyncGenerator<{ type: string } & Record<string, unknown>>) {
  const messages: ({ type: string } & Record<string, unknown>)[] = [];
  for await (const message of stream) messages.push(message);
  return messages;
}

describe('legacy tasks with the SDK 1.x client', () => {
  it('publishes execution.taskSupport and the tasks capability', async () => {
    const { tools } = await client.listTools();
    const all = [...tools];
    let cursor: string | undefined;
    const first = await client.listTools();
    cursor = first.nextCursor;
    while (cursor) {
      const page = await client.listTools({ cursor });
      all.push(...page.tools);
      cursor = page.nextCursor;
    }
    const support = Object.fromEntries(all.map((tool) => [tool.name, tool.execution?.taskSupport]));
    assert.deepEqual(support, { ask: 'optional', short_deadline: 'required', spin: 'optional' });
    assert.ok(client.getServerCapabilities()?.tasks?.requests?.tools?.call);
  });

  it('streams a task-augmented call from taskCreated to its result; tasks/get and tasks/list see it', async () => {
    const messages = await drain(
      client.experimental.tasks.callToolStream({ name: 'spin', arguments: { ms: 150 } }, undefined, {
        task: { ttl: 60_000 },
      }) as never,
    );
    assert.equal(messages[0]!.type, 'taskCreated');
    const last = messages.at(-1)!;
    assert.equal(last.type, 'result', JSON.stringify(last));
    assert.match((last.result as { content: { text: string }[] }).content[0]!.text, /^spun 150 ms/);
    const taskId = (messages[0]!.task as { taskId: string }).taskId;
    const task = await client.experimental.tasks.getTask(taskId);
    assert.equal(task.status, 'completed');
    assert.equal(task.ttl, 60_000);
    await until(
      async () => statusNotes.filter((note) => note.taskId === taskId).map((note) => note.status),
      (statuses) => statuses.includes('completed'),
    );
  });

  it('pages tasks/list by taskId with an opaque cursor', async () => {
    for (let i = 0; i < 3; i++) {
      await drain(
        client.experimental.tasks.callToolStream({ name: 'spin', arguments: { ms: 1 } }, undefined, {
          task: {},
        }) as never,
      );
    }
    const ids: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.experimental.tasks.listTasks(cursor);
      ids.push(...page.tasks.map((task) => task.taskId));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    assert.ok(ids.length >= 4);
    assert.ok(pages >= 2);
    assert.deepEqual(ids, [...ids].sort());
  });

  it('cancels a spinning task: its thread is terminated within a second, and the cancel is final', async () => {
    const stream = client.experimental.tasks.callToolStream(
      { name: 'spin', arguments: { ms: 600_000 } },
      undefined,
      {
        task: {},
      },
    );
    const first = (await stream.next()).value as { type: string; task: { taskId: string } };
    assert.equal(first.type, 'taskCreated');
    const { taskId } = first.task;
    await until(
      async () => server.stats.freeThreads,
      (free) => free < 2,
    );
    const cancelled = await client.experimental.tasks.cancelTask(taskId);
    assert.equal(cancelled.status, 'cancelled');
    const at = Date.now();
    await until(
      async () => server.stats.freeThreads,
      (free) => free === 2,
      1_000,
    );
    assert.ok(Date.now() - at < 1_000);
    await stream.return(undefined);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal((await client.experimental.tasks.getTask(taskId)).status, 'cancelled');
    await assert.rejects(
      client.experimental.tasks.cancelTask(taskId),
      (error: { code?: number }) => error.code === -32602,
    );
  });

  it('asks the client during a task with a request tagged with the task, then completes', async () => {
    const messages = await drain(
      client.experimental.tasks.callToolStream({ name: 'ask', arguments: {} }, undefined, {
        task: {},
      }) as never,
    );
    const taskId = (messages[0]!.task as { taskId: string }).taskId;
    assert.equal(messages.at(-1)!.type, 'result', JSON.stringify(messages.at(-1)));
    assert.equal(
      (messages.at(-1)!.result as { content: { text: string }[] }).content[0]!.text,
      'you said loom',
    );
    const asked = elicitations.find(
      (params) =>
        (params._meta as Record<string, { taskId?: string }> | undefined)?.[RELATED_TASK]?.taskId === taskId,
    );
    assert.ok(asked, `an elicitation tagged with ${taskId}: ${JSON.stringify(elicitations)}`);
  });

  it('ends a task at its deadline as failed, and tasks/result gives the isError result', async () => {
    const messages = await drain(
      client.experimental.tasks.callToolStream({ name: 'short_deadline', arguments: {} }, undefined, {
        task: {},
      }) as never,
    );
    const taskId = (messages[0]!.task as { taskId: string }).taskId;
    const task = await until(
      () => client.experimental.tasks.getTask(taskId),
      (value) => value.status !== 'working',
    );
    assert.equal(task.status, 'failed');
    const outcome = (await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as {
      isError?: boolean;
    };
    assert.equal(outcome.isError, true);
  });

  it('refuses a task-only tool called without a task, saying how to call it', async () => {
    const reply = await client.callTool({ name: 'short_deadline', arguments: {} }).catch((error) => error);
    assert.match(
      String(reply?.message ?? JSON.stringify(reply)),
      /runs only as a task: call it with params\.task/,
    );
  });
});
