/**
 * End to end over stdio with the official MCP SDK client, against the demo and fixture servers
 * running as child processes: what a real client sees.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { DEMO_TOOL_NAMES, listToolNames } from '../support/list-tools.js';
import {
  connectOverStdio,
  cpuSeconds,
  DEMO_SERVER,
  FIXTURE_SERVER,
  type StdioSession,
} from '../support/sdk-stdio.js';

const text = (result: unknown) => (result as { content?: { text?: string }[] }).content?.[0]?.text ?? '';

describe('the demo over stdio', () => {
  let demo: StdioSession;
  before(async () => {
    demo = await connectOverStdio(DEMO_SERVER, ['--stdio', '--page-size', '3', '--threads', '2']);
  });
  after(() => demo.close());

  it('lists every tool in name order across pages', async () => {
    const { names, pages } = await listToolNames(demo.client);
    assert.deepEqual(names, [...names].sort());
    assert.deepEqual(names, DEMO_TOOL_NAMES);
    assert.equal(pages, Math.ceil(DEMO_TOOL_NAMES.length / 3));
  });

  it('answers a runaway spin as a timeout at its 2 s deadline, and serves fib at once after it', async () => {
    const started = Date.now();
    const spin = await demo.client.callTool({ name: 'spin', arguments: { ms: 600_000 } });
    const elapsed = Date.now() - started;
    assert.equal(spin.isError, true);
    assert.match(text(spin), /2000 ms deadline/);
    assert.ok(elapsed < 2_100 + 400, `answered after ${elapsed} ms`); // 2100 ms target; margin for a loaded CI
    const fibStarted = Date.now();
    const fib = await demo.client.callTool({ name: 'fib', arguments: { n: 20 } });
    assert.deepEqual(fib.structuredContent, { n: 20, value: 6765 });
    assert.ok(Date.now() - fibStarted < 1_000, 'fib was not kept waiting');
  });

  it('stops two client-cancelled runaways: the process goes idle and both threads serve again', async () => {
    const controllers = [new AbortController(), new AbortController()];
    const calls = controllers.map((controller) =>
      demo.client
        .callTool({ name: 'spin', arguments: { ms: 600_000 } }, undefined, { signal: controller.signal })
        .catch((error: unknown) => error),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const controller of controllers) controller.abort('the user gave up');
    for (const outcome of await Promise.all(calls)) assert.ok(outcome instanceof Error);
    await new Promise((resolve) => setTimeout(resolve, 600)); // grace (200 ms) + thread exit
    const cpuBefore = await cpuSeconds(demo.pid);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const cpuUsed = (await cpuSeconds(demo.pid)) - cpuBefore;
    assert.ok(
      cpuUsed <= 0.1,
      `the server used ${cpuUsed.toFixed(2)} s of CPU in the second after the cancels`,
    );
    // Side by side, the two spins (300 ms of wall-clock time each) end together; one after the
    // other, 300 ms apart. The gap says which, whatever else the machine is doing.
    const endedAt: number[] = [];
    const both = await Promise.all(
      [0, 1].map(() =>
        demo.client.callTool({ name: 'spin', arguments: { ms: 300 } }).then((result) => {
          endedAt.push(Date.now());
          return result;
        }),
      ),
    );
    for (const result of both) assert.match(text(result), /spun 300 ms/);
    const gap = Math.abs(endedAt[1]! - endedAt[0]!);
    assert.ok(gap < 200, `two spins ran side by side on two free threads (they ended ${gap} ms apart)`);
  });

  it('delivers progress notifications to the client', async () => {
    const updates: number[] = [];
    const result = await demo.client.callTool(
      { name: 'hash_chain', arguments: { text: 'weft', rounds: 200_000 } },
      undefined,
      {
        onprogress: (progress) => updates.push(progress.progress),
      },
    );
    assert.match(text(result), /^[0-9a-f]{64}$/);
    assert.ok(updates.length >= 2, `got ${updates.length} progress updates`);
    for (let i = 1; i < updates.length; i++) assert.ok(updates[i]! > updates[i - 1]!);
  });
});

describe('faults over stdio', () => {
  let fixtures: StdioSession;
  before(async () => {
    fixtures = await connectOverStdio(FIXTURE_SERVER, [], { WEFT_THREADS: '1', WEFT_MAX_QUEUE: '1' });
  });
  after(() => fixtures.close());

  it('answers a crashed worker with -32603 and keeps serving', async () => {
    await assert.rejects(
      fixtures.client.callTool({ name: 'crash', arguments: {} }),
      (error: unknown) => error instanceof McpError && error.code === -32603,
    );
    const echo = await fixtures.client.callTool({ name: 'echo', arguments: { text: 'still here' } });
    assert.equal(text(echo), 'still here');
    const fib = await fixtures.client.callTool({ name: 'fib', arguments: { n: 12 } });
    assert.deepEqual(fib.structuredContent, { n: 12, value: 144 });
  });

  it('answers overload at once when the queue is full', async () => {
    const running = fixtures.client.callTool({ name: 'busy', arguments: { ms: 800 } });
    const queued = fixtures.client.callTool({ name: 'busy', arguments: { ms: 10 } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    await assert.rejects(
      fixtures.client.callTool({ name: 'busy', arguments: { ms: 10 } }),
      (error: unknown) => error instanceof McpError && error.code === -32010,
    );
    assert.ok(Date.now() - started < 300, 'the refusal did not wait for a slot');
    assert.equal(text(await running), 'busy 800');
    assert.equal(text(await queued), 'busy 10');
  });
});
