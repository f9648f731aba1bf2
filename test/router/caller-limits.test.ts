/**
 * Per-caller limits on one server, through the router: a call over a limit is answered at once
 * (-32013, nothing ran) with the limit named and `data.retryAfterMs`; other callers are not held
 * back by it; tools add limits of their own; modern HTTP answers 429 with Retry-After; malformed
 * limit and fairness options are refused when the server is built.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { McpServer } from '../../lib/index.js';
import { ErrorCode } from '../../lib/protocol/error-codes.js';
import { InProcessClient } from '../support/in-process-client.js';
import { ModernHttpPeer } from '../transports/modern-http-peer.js';

/** An inline tool whose calls wait until the test opens the gate; counts the calls that ran. */
function gatedServer(options: ConstructorParameters<typeof McpServer>[0]) {
  let open: () => void = () => {};
  let gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const state = { ran: 0 };
  const server = new McpServer(options)
    .tool({
      name: 'wait_gate',
      description: 'Waits for the test',
      inputSchema: { type: 'object' },
      handler: async () => {
        state.ran++;
        await gate;
        return 'done';
      },
    })
    .tool({
      name: 'quick',
      description: 'Answers at once; at most 2 calls per minute per caller',
      inputSchema: { type: 'object' },
      limits: { perCaller: { callsPerMinute: 2 } },
      handler: () => 'ok',
    })
    .tool({
      name: 'held',
      description: 'Holds a turn of its concurrency for ms milliseconds',
      inputSchema: { type: 'object', properties: { ms: { type: 'integer' } } },
      concurrency: 4,
      limits: { perCaller: { poolMsPerMinute: 100 } },
      handler: async ({ ms }: { ms?: number }) => {
        await new Promise((resolve) => setTimeout(resolve, ms ?? 0));
        return 'held';
      },
    });
  return {
    server,
    state,
    release: () => {
      open();
      gate = new Promise<void>((resolve) => {
        open = resolve;
      });
    },
  };
}

type LimitData = { limit: string; scope: string; max: number; retryAfterMs: number };

describe('Per-caller limits', () => {
  it('refuses a call past callsInFlight at once, naming the limit, and only for that caller', async () => {
    const { server, state, release } = gatedServer({
      name: 't',
      version: '1',
      limits: { perCaller: { callsInFlight: 2 } },
    });
    const a = new InProcessClient(server);
    const b = new InProcessClient(server);
    await a.initialize();
    await b.initialize();
    const first = a.callTool('wait_gate', {});
    const second = a.callTool('wait_gate', {});
    const started = Date.now();
    const refused = await a.callTool('wait_gate', {});
    assert.ok(Date.now() - started < 1_000, 'answered at once');
    assert.equal(refused.error?.code, ErrorCode.LimitExceeded);
    assert.match(refused.error!.message, /limits\.perCaller\.callsInFlight/);
    assert.match(refused.error!.message, /Nothing ran/);
    const data = (refused.error as { data?: LimitData }).data!;
    assert.equal(data.limit, 'callsInFlight');
    assert.equal(data.scope, 'server');
    assert.equal(data.max, 2);
    assert.ok(data.retryAfterMs >= 1);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(state.ran, 2, 'the refused call never ran');
    // Another caller is not held back by A's limit.
    const other = b.callTool('wait_gate', {});
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(state.ran, 3);
    const holdings = server.stats.callers;
    assert.ok(holdings.length === 0 || holdings.every((h) => h.waiting === 0));
    release();
    assert.equal((await first).result?.content?.[0]?.text, 'done');
    await second;
    await other;
    // Once A's calls ended, A may call again.
    const again = a.callTool('wait_gate', {});
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    assert.equal((await again).result?.content?.[0]?.text, 'done');
    await server.close();
  });

  it("refuses past a tool's callsPerMinute with the time until the next call may pass", async () => {
    const { server } = gatedServer({ name: 't', version: '1' });
    const a = new InProcessClient(server);
    await a.initialize();
    assert.equal((await a.callTool('quick', {})).result?.content?.[0]?.text, 'ok');
    assert.equal((await a.callTool('quick', {})).result?.content?.[0]?.text, 'ok');
    const refused = await a.callTool('quick', {});
    assert.equal(refused.error?.code, ErrorCode.LimitExceeded);
    const data = (refused.error as { data?: LimitData }).data!;
    assert.deepEqual([data.limit, data.scope, data.max], ['callsPerMinute', 'tool', 2]);
    // Two calls a minute: the next one passes about 30 s after the first.
    assert.ok(data.retryAfterMs > 25_000 && data.retryAfterMs <= 30_000, String(data.retryAfterMs));
    assert.match(refused.error!.message, /tool "quick"'s limits\.perCaller\.callsPerMinute/);
    // Another caller has its own two.
    const b = new InProcessClient(server);
    await b.initialize();
    assert.equal((await b.callTool('quick', {})).result?.content?.[0]?.text, 'ok');
    await server.close();
  });

  it('refuses once a caller used its poolMsPerMinute, charged with the time its calls held a slot', async () => {
    const { server } = gatedServer({ name: 't', version: '1' });
    const a = new InProcessClient(server);
    await a.initialize();
    assert.equal((await a.callTool('held', { ms: 150 })).result?.content?.[0]?.text, 'held');
    const refused = await a.callTool('held', { ms: 1 });
    assert.equal(refused.error?.code, ErrorCode.LimitExceeded);
    const data = (refused.error as { data?: LimitData }).data!;
    assert.equal(data.limit, 'poolMsPerMinute');
    // 150 ms used of 100 per minute: 50 ms over, which takes 30 s to pay back.
    assert.ok(data.retryAfterMs > 20_000 && data.retryAfterMs < 40_000, String(data.retryAfterMs));
    await server.close();
  });

  it('answers 429 with Retry-After over modern HTTP, keyed by fairness.key', async () => {
    const server = new McpServer({
      name: 't',
      version: '1',
      fairness: { key: ({ meta }) => (typeof meta?.tenant === 'string' ? meta.tenant : undefined) },
      limits: { perCaller: { callsPerMinute: 1 } },
    }).tool({ name: 'echo', description: 'Echo', inputSchema: { type: 'object' }, handler: () => 'hi' });
    await server.listen({ http: { port: 0, host: '127.0.0.1' }, handleSignals: false });
    after(() => server.close());
    const peer = new ModernHttpPeer(`http://127.0.0.1:${server.addresses.http!.port}/mcp`);
    const { envelope } = await import('../transports/modern-http-peer.js');
    const call = (tenant: string) =>
      peer.request('tools/call', { name: 'echo', arguments: {}, _meta: { ...envelope(), tenant } });
    const ok = await call('acme');
    assert.equal(ok.status, 200);
    const refused = await call('acme');
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.code, ErrorCode.LimitExceeded);
    assert.equal(refused.body.error.data.limit, 'callsPerMinute');
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.equal(retryAfter, Math.ceil(refused.body.error.data.retryAfterMs / 1000));
    assert.ok(retryAfter >= 59 && retryAfter <= 60, String(retryAfter));
    // Another tenant is its own caller.
    assert.equal((await call('globex')).status, 200);
  });

  it('counts a task while it runs: its caller has one place in flight fewer until it ends', async () => {
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const server = new McpServer({
      name: 't',
      version: '1',
      limits: { perCaller: { callsInFlight: 1 } },
    }).tool({
      name: 'long_job',
      description: 'Runs until the test opens the gate',
      inputSchema: { type: 'object' },
      task: 'optional',
      handler: async () => {
        await gate;
        return 'finished';
      },
    });
    const a = new InProcessClient(server);
    await a.initialize('2025-11-25', { tasks: {} });
    const created = await a.callTool('long_job', {}, { task: {} });
    const taskId = (created.result as { task?: { taskId?: string } } | undefined)?.task?.taskId;
    assert.ok(taskId, JSON.stringify(created));
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The task runs: a plain call of the same caller is one too many.
    const refused = await a.callTool('long_job', {});
    assert.equal(refused.error?.code, ErrorCode.LimitExceeded);
    assert.equal((refused.error as { data?: LimitData }).data?.limit, 'callsInFlight');
    open();
    for (let i = 0; i < 100; i++) {
      const got = await a.request('tasks/get', { taskId });
      if ((got.result as { status?: string } | undefined)?.status === 'completed') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Ended: the place is free again.
    assert.equal((await a.callTool('long_job', {})).result?.content?.[0]?.text, 'finished');
    await server.close();
  });

  it('refuses malformed limits and fairness options when the server is built', () => {
    assert.throws(
      () => new McpServer({ name: 't', version: '1', limits: { perCaller: { callsPerMinit: 3 } as never } }),
      /unknown limit "callsPerMinit"/,
    );
    assert.throws(
      () => new McpServer({ name: 't', version: '1', limits: { perCaller: { callsInFlight: 0 } } }),
      /callsInFlight must be a whole number of at least 1/,
    );
    assert.throws(
      () => new McpServer({ name: 't', version: '1', fairness: { keys: () => 'x' } as never }),
      /unknown fairness option "keys"/,
    );
    const server = new McpServer({ name: 't', version: '1' });
    assert.throws(
      () =>
        server.tool({
          name: 'x',
          description: 'x',
          inputSchema: { type: 'object' },
          limits: { perCaller: { queued: -1 } },
          handler: () => 'x',
        }),
      /limits\.perCaller\.queued must be a whole number of at least 0/,
    );
  });
});
