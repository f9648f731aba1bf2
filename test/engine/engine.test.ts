import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { TimeoutError } from 'p-timeout';
import { addDemoTools } from '../../examples/demo-tools.js';
import { McpServer } from '../../lib/index.js';
import {
  announced,
  busy,
  cooperative,
  crash,
  destructuring,
  fail,
  progress,
  runaway,
  whichThread,
} from '../support/fixture-tools.js';
import { InProcessClient } from '../support/in-process-client.js';

const logged: string[] = [];
const server = addDemoTools(
  new McpServer({
    name: 'engine-test',
    version: '1',
    timeoutMs: 10_000,
    pool: { maxThreads: 2, maxQueue: 2, graceMs: 100 },
    logError: (message) => logged.push(message),
  }),
)
  .tool(crash)
  .tool(fail)
  .tool(cooperative)
  .tool(progress)
  .tool(runaway)
  .tool(busy)
  .tool(announced)
  .tool(whichThread)
  .tool(destructuring)
  .tool({
    name: 'destructuring_inline',
    inputSchema: { type: 'object' },
    handler: (_args, { checkpoint, progress, log }) => {
      checkpoint();
      progress(1, 1);
      log('info', 'destructured');
      return 'unbound methods work';
    },
  })
  .tool({
    name: 'one_at_a_time',
    inputSchema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] },
    concurrency: 1,
    handler: async ({ ms }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return `${Date.now()}`;
    },
  })
  .tool({
    name: 'inline_own_timeout',
    inputSchema: { type: 'object' },
    handler: () => {
      // What a handler's own timeout library throws (weft itself once used this one): the
      // handler's error, not weft's deadline.
      throw new TimeoutError('upstream took too long');
    },
  })
  .tool({
    name: 'inline_slow',
    inputSchema: { type: 'object' },
    timeoutMs: 200,
    handler: (_args, ctx) =>
      new Promise((resolve) => {
        const timer = setTimeout(() => resolve('too late'), 5_000);
        ctx.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve('saw the abort');
        });
      }),
  });

const client = new InProcessClient(server);
await client.initialize();
after(() => server.close());

async function threadsFreeAgain(timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (server.stats.freeThreads < 2) {
    if (Date.now() > deadline) throw new Error(`slots still busy: ${JSON.stringify(server.stats)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const text = (reply: { result?: { content?: { text?: string }[] } }) =>
  reply.result?.content?.[0]?.text ?? '';

/** The ids of the pool's two threads: two overlapping calls land on both. */
async function poolThreadIds(): Promise<string[]> {
  const replies = await Promise.all([1, 2].map(() => client.callTool('which_thread', { ms: 200 })));
  return replies.map(text).sort();
}

describe('blocking tools', () => {
  it('answers a runaway loop as a timeout at its deadline, then frees the slot once the thread exits', async () => {
    const started = Date.now();
    const reply = await client.callTool('runaway', { ms: 60_000 });
    const elapsed = Date.now() - started;
    assert.equal(reply.result?.isError, true);
    assert.match(text(reply), /timed out.*500 ms deadline/);
    assert.ok(elapsed >= 480 && elapsed < 2_000, `answered after ${elapsed} ms`);
    await threadsFreeAgain();
    const fib = await client.callTool('fib', { n: 15 });
    assert.deepEqual(fib.result?.structuredContent, { n: 15, value: 610 });
  });

  it('drops a late completion: exactly one answer per call', async () => {
    const id = 'late-1';
    await client.request('tools/call', { name: 'runaway', arguments: { ms: 700 } }, id);
    await new Promise((resolve) => setTimeout(resolve, 600));
    const answers = client.received.filter((message) => 'id' in message && message.id === id);
    assert.equal(answers.length, 1);
    await threadsFreeAgain();
  });

  it('sends nothing for a cancelled call and stops its work', async () => {
    const id = 'cancel-me';
    client.send({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'busy', arguments: { ms: 60_000 } },
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(server.stats.freeThreads, 1);
    client.notify('notifications/cancelled', { requestId: id, reason: 'test' });
    await threadsFreeAgain();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(client.received.filter((message) => 'id' in message && message.id === id).length, 0);
  });

  it('never starts a call cancelled in the same turn it arrived: no thread runs or dies for it', async () => {
    const id = 'cancel-at-once';
    const threadsBefore = await poolThreadIds();
    // Tasks are posted at the end of the event loop's turn; this cancel comes before that.
    client.send({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'announced', arguments: { ms: 60_000 } },
    });
    client.notify('notifications/cancelled', { requestId: id });
    await threadsFreeAgain(1_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(client.received.filter((message) => 'id' in message && message.id === id).length, 0);
    const ran = client
      .notifications('notifications/message')
      .some((message) => JSON.stringify(message).includes('announced started'));
    assert.equal(ran, false, 'the handler never ran');
    assert.deepEqual(await poolThreadIds(), threadsBefore, 'no thread was terminated and replaced');
  });

  it('lets a cooperative handler stop itself at its checkpoint within the grace', async () => {
    const id = 'coop';
    client.send({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'cooperative', arguments: { ms: 60_000 } },
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const threadsBefore = server.stats.threads;
    client.notify('notifications/cancelled', { requestId: id });
    await threadsFreeAgain(1_000);
    // The handler returned by itself, so its thread was kept rather than terminated and replaced.
    assert.equal(server.stats.threads, threadsBefore);
  });

  it('answers a handler error as an isError result with its message and no stack', async () => {
    const reply = await client.callTool('fail', {});
    assert.equal(reply.result?.isError, true);
    assert.equal(text(reply), 'the fixture failed on purpose');
  });

  it('answers a dead worker with -32603, logs the detail, and keeps serving', async () => {
    const reply = await client.callTool('crash', {});
    assert.equal(reply.error?.code, -32603);
    assert.doesNotMatch(reply.error?.message ?? '', /at .*\.js/);
    assert.ok(logged.some((line) => line.includes('"crash" died')));
    const after = await client.callTool('fib', { n: 10 });
    assert.deepEqual(after.result?.structuredContent, { n: 10, value: 55 });
    await threadsFreeAgain();
  });

  it('refuses calls at once when the bounded queue is full', async () => {
    const ids = ['q1', 'q2', 'q3', 'q4'];
    for (const id of ids) {
      client.send({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'busy', arguments: { ms: 300 } },
      });
    }
    const started = Date.now();
    const refused = await client.request('tools/call', { name: 'busy', arguments: { ms: 300 } }, 'q5');
    assert.equal(refused.error?.code, -32010);
    assert.match(refused.error?.message ?? '', /overloaded/i);
    assert.ok(Date.now() - started < 100, 'refused without waiting');
    for (const id of ids) {
      const answer = await client.waitFor((message) => 'id' in message && message.id === id);
      assert.match(text(answer as never), /busy 300/);
    }
  });

  it("lets a handler destructure ctx's methods, inline and on the pool", async () => {
    for (const name of ['destructuring', 'destructuring_inline']) {
      const token = `destructure-${name}`;
      const reply = await client.callTool(name, {}, { _meta: { progressToken: token } });
      assert.equal(reply.result?.isError, undefined, `${name}: ${text(reply)}`);
      assert.equal(text(reply), 'unbound methods work');
      const progressed = client.received.some(
        (message) =>
          'method' in message &&
          message.method === 'notifications/progress' &&
          (message.params as { progressToken?: unknown })?.progressToken === token,
      );
      assert.ok(progressed, `${name} sent no progress`);
    }
  });

  it('reports progress and logs from inside the worker', async () => {
    const before = client.received.length;
    const reply = await client.callTool('progress', { steps: 4 }, { _meta: { progressToken: 'tok' } });
    assert.equal(text(reply), '4 steps');
    const fresh = client.received.slice(before);
    const updates = fresh
      .filter((message) => 'method' in message && message.method === 'notifications/progress')
      .map(
        (message) => (message as unknown as { params: { progressToken: string; progress: number } }).params,
      );
    assert.ok(updates.length >= 2, `got ${updates.length} progress notifications`);
    assert.ok(updates.every((update) => update.progressToken === 'tok'));
    for (let i = 1; i < updates.length; i++) assert.ok(updates[i]!.progress > updates[i - 1]!.progress);
    const logs = fresh.filter((message) => 'method' in message && message.method === 'notifications/message');
    assert.equal(logs.length, 4);
  });
});

describe('inline tools', () => {
  it('aborts ctx.signal at the deadline and answers a timeout', async () => {
    const reply = await client.callTool('inline_slow', {});
    assert.equal(reply.result?.isError, true);
    assert.match(text(reply), /200 ms deadline/);
  });

  it("answers a handler's own TimeoutError as its error, not as weft's deadline", async () => {
    const started = Date.now();
    const reply = await client.callTool('inline_own_timeout', {});
    assert.equal(reply.result?.isError, true);
    assert.match(text(reply), /upstream took too long/);
    assert.doesNotMatch(text(reply), /deadline/);
    assert.ok(Date.now() - started < 5_000);
  });

  it('runs at most `concurrency` calls of a tool at once', async () => {
    const [a, b] = await Promise.all([
      client.callTool('one_at_a_time', { ms: 150 }),
      client.callTool('one_at_a_time', { ms: 150 }),
    ]);
    const gap = Math.abs(Number(text(a)) - Number(text(b)));
    assert.ok(gap >= 140, `the second call started ${gap} ms after the first`);
  });
});
