/**
 * A call's deadline counts from the request's arrival, not from the moment its work could start:
 * whatever ran before (a middleware, the first call loading the schema compiler and compiling its
 * schema) is spent from the call's budget, so a runaway call is answered at its deadline, inline
 * and on the pool alike, and the timeout still names the tool's whole deadline. Over HTTP the
 * request arrives at the transport's door, before its auth hook: a slow hook's time is inside too.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { addDemoTools } from '../../examples/demo-tools.js';
import { abortableSleep } from '../../lib/abortable-sleep.js';
import { McpServer } from '../../lib/index.js';
import { defineTool } from '../../lib/tool.js';
import { InProcessClient } from '../support/in-process-client.js';
import { envelope, standardHeaders } from '../transports/modern-http-peer.js';

/** What ran before the call's work: long next to the deadlines below, so the origin shows plainly. */
const BEFORE_MS = 700;

/** Holds the event loop, as loading and compiling on a first call does. */
function busyFor(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {}
}

/** An inline call that never ends by itself, with a 1 s deadline. */
const waitForever = defineTool({
  name: 'wait_forever',
  inputSchema: { type: 'object' },
  timeoutMs: 1_000,
  handler: async (_args, ctx) => {
    await abortableSleep(60_000, ctx.signal);
    return 'never';
  },
});

const server = addDemoTools(new McpServer({ name: 'deadlines', version: '1', pool: { maxThreads: 1 } }))
  .tool(waitForever)
  .use((ctx, next) => {
    if (ctx.method === 'tools/call') busyFor(BEFORE_MS);
    return next();
  });
after(() => server.close());

async function answeredAfter(name: string, args: Record<string, unknown>) {
  const client = new InProcessClient(server);
  await client.initialize();
  const started = performance.now();
  const reply = await client.callTool(name, args);
  client.close();
  return { ms: performance.now() - started, text: reply.result?.content?.[0]?.text ?? '' };
}

describe('a deadline counts from the request arrival', () => {
  it('inline: answered at its deadline, with what ran before the call inside it', async () => {
    const { ms, text } = await answeredAfter('wait_forever', {});
    assert.match(text, /within its 1000 ms deadline/);
    assert.ok(ms < 1_000 + BEFORE_MS / 2, `answered after ${ms.toFixed(0)} ms; the deadline is 1000 ms`);
  });

  it('on the pool: the runaway spin is answered at its deadline, with what ran before inside it', async () => {
    const { ms, text } = await answeredAfter('spin', { ms: 10_000 });
    assert.match(text, /within its 2000 ms deadline/);
    assert.ok(ms < 2_000 + BEFORE_MS / 2, `answered after ${ms.toFixed(0)} ms; the deadline is 2000 ms`);
  });
});

describe('over HTTP, a deadline counts from the request reaching the door', () => {
  /** An auth hook as slow as a far-away authorization server: it runs before the router sees the call. */
  const slowHook = async () => {
    await new Promise((resolve) => setTimeout(resolve, BEFORE_MS));
    return true as const;
  };
  const hooked = new McpServer({ name: 'deadlines-http', version: '1' }).tool(waitForever);
  after(() => hooked.close());

  it('2026-07-28: the auth hook’s time is inside the deadline', async () => {
    await hooked.listen({ http: { port: 0, auth: slowHook }, handleSignals: false });
    const params = { name: 'wait_forever', arguments: {}, _meta: envelope() };
    const started = performance.now();
    const response = await fetch(`http://127.0.0.1:${hooked.addresses.http!.port}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...standardHeaders('tools/call', params),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
    });
    const text = await response.text();
    const ms = performance.now() - started;
    assert.match(text, /within its 1000 ms deadline/);
    assert.ok(ms < 1_000 + BEFORE_MS / 2, `answered after ${ms.toFixed(0)} ms; the deadline is 1000 ms`);
  });
});
