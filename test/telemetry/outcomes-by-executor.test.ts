/**
 * How a call ends, beyond the thread (spans.test.ts covers timeout, cancel, panicked and
 * overloaded there): an inline call's timeout, cancel and overload, and a process call's timeout
 * and crash, each named in the request span's `error.type`, in the run span (blocking calls) and
 * counted in `weft.call.outcomes` under its executor.
 */
import './otel-harness.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { McpServer } from '../../lib/index.js';
import { InProcessClient } from '../support/in-process-client.js';
import { parentOf, points, spanEnded } from './otel-harness.js';
import { crashProcess, spinProcess } from './telemetry-tools.js';

const attr = (span: { attributes: Record<string, unknown> }, key: string) => span.attributes[key];

/** Waits `ms`, or until the call is cancelled (an inline handler that stops when told). */
const wait = (ms: number, signal: AbortSignal) =>
  new Promise<string>((resolve) => {
    const timer = setTimeout(() => resolve('waited'), ms);
    signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
  });

function buildServer(options: Partial<ConstructorParameters<typeof McpServer>[0]> = {}): McpServer {
  return new McpServer({ name: 'outcomes', version: '1.0.0', ...options })
    .tool({
      name: 'wait_inline',
      timeoutMs: 300,
      inputSchema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] },
      handler: ({ ms }, ctx) => wait(ms as number, ctx.signal),
    })
    .tool(spinProcess)
    .tool(crashProcess);
}

async function outcomeCount(tool: string, executor: string, outcome: string): Promise<number> {
  const found = (await points('weft.call.outcomes')).find(
    (p) =>
      p.attributes['gen_ai.tool.name'] === tool &&
      p.attributes['weft.executor'] === executor &&
      p.attributes['weft.outcome'] === outcome,
  );
  return Number(found?.value ?? 0);
}

describe('outcomes on the inline and process executors', () => {
  let server: McpServer;
  let client: InProcessClient;

  before(async () => {
    server = buildServer();
    client = new InProcessClient(server);
    await client.initialize('2025-11-25');
  });
  after(() => server.close());

  it('names an inline timeout and an inline cancel', async () => {
    await client.request('tools/call', { name: 'wait_inline', arguments: { ms: 5_000 } }, 'i-timeout');
    const timed = await spanEnded(
      'tools/call wait_inline',
      (s) => attr(s, 'jsonrpc.request.id') === 'i-timeout',
    );
    assert.equal(attr(timed, 'error.type'), 'weft.timeout');
    assert.equal(await outcomeCount('wait_inline', 'inline', 'timeout'), 1);

    void client.request('tools/call', { name: 'wait_inline', arguments: { ms: 5_000 } }, 'i-cancel');
    await new Promise((resolve) => setTimeout(resolve, 50));
    client.notify('notifications/cancelled', { requestId: 'i-cancel' });
    const cancelled = await spanEnded(
      'tools/call wait_inline',
      (s) => attr(s, 'jsonrpc.request.id') === 'i-cancel',
    );
    assert.equal(attr(cancelled, 'error.type'), 'weft.cancelled');
    assert.equal(await outcomeCount('wait_inline', 'inline', 'cancelled'), 1);
  });

  it('names an inline call refused as overloaded', async () => {
    const small = buildServer({ maxCallsInFlight: 1 });
    const smallClient = new InProcessClient(small);
    try {
      await smallClient.initialize('2025-11-25');
      const busy = smallClient.request(
        'tools/call',
        { name: 'wait_inline', arguments: { ms: 200 } },
        'i-busy',
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
      const refused = await smallClient.request(
        'tools/call',
        { name: 'wait_inline', arguments: { ms: 1 } },
        'i-refused',
      );
      assert.ok(refused.error || refused.result?.isError, JSON.stringify(refused));
      await busy;
      const span = await spanEnded(
        'tools/call wait_inline',
        (s) => attr(s, 'jsonrpc.request.id') === 'i-refused',
      );
      assert.equal(attr(span, 'error.type'), 'weft.overloaded');
    } finally {
      await small.close();
    }
  });

  it('names a process timeout and a process crash, in the request span and the run span', async () => {
    const expectations: Array<[string, string, Record<string, unknown>, string, string]> = [
      ['p-timeout', 'spin_process', { ms: 5_000 }, 'weft.timeout', 'timeout'],
      ['p-crash', 'crash_process', {}, 'weft.panicked', 'panicked'],
    ];
    for (const [id, tool, args, errorType, outcome] of expectations) {
      await client.request('tools/call', { name: tool, arguments: args }, id);
      const request = await spanEnded(`tools/call ${tool}`, (s) => attr(s, 'jsonrpc.request.id') === id);
      assert.equal(attr(request, 'error.type'), errorType, id);
      const run = await spanEnded(`weft.run ${tool}`, (s) => parentOf(s) === request.spanContext().spanId);
      assert.equal(attr(run, 'weft.executor'), 'process', id);
      assert.equal(attr(run, 'weft.outcome'), outcome, id);
      assert.equal(await outcomeCount(tool, 'process', outcome), 1, id);
    }
  });
});
