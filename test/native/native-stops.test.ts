/**
 * Tools built on real native libraries (argon2, sharp), written as the README shows a blocking tool
 * (`blocking: true` and nothing else), are stopped safely by a deadline and by a cancel: weft sees
 * their modules load native code and runs them in pool processes. Each call is answered once, the
 * server lives (argon2 in a terminated thread aborts the process), the CPU of the server and of the
 * processes it had at the answer falls to idle within 1 s of it (sharp in a terminated thread burns
 * on; a warm pool process started afterwards to replace the killed one is not the call's work), no
 * process or thread is left, and `/readyz` is never ready while no slot can run a call.
 *
 * Calls per tool and way of stopping: WEFT_NATIVE_CALLS (default 5, for `npm test`; the full run
 * the issue asks for is WEFT_NATIVE_CALLS=100, 15 to 25 minutes on 2 busy cores).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  type CountingClient,
  countingClient,
  msUntilIdle,
  type NativeServer,
  startNativeServer,
} from './native-process.js';

const CALLS = Number(process.env.WEFT_NATIVE_CALLS ?? 5);
/** Room for a pool process to start and load argon2 and sharp (a killed one is replaced per call). */
const DEADLINE_MS = 2_500;
const CANCEL_AFTER_MS = 300;

describe('native tools stopped by deadlines and cancels', () => {
  let server: NativeServer;
  let caller: CountingClient;
  let prober: CountingClient;
  let threadsAtRest = 0;
  let proberStop = false;
  let prober$: Promise<void> = Promise.resolve();
  const readyButUnserved: string[] = [];

  before(async () => {
    server = await startNativeServer(['--threads', '2', '--timeout-ms', String(DEADLINE_MS)]);
    caller = await countingClient(server.url);
    prober = await countingClient(server.url);
    // Each tool's first call: its thread finds the module native, and the call runs in a process.
    // A cold process loading argon2 and sharp on a busy machine may miss the deadline: again, then.
    for (const name of ['argon_hash', 'sharp_blur']) {
      let first: { isError?: unknown } = { isError: true };
      for (let attempt = 0; attempt < 8 && first.isError === true; attempt++) {
        first = (await caller.client.callTool(
          { name, arguments: args(name, 'fast') },
          CallToolResultSchema,
        )) as {
          isError?: unknown;
        };
      }
      assert.notEqual(first.isError, true, JSON.stringify(first));
    }
    threadsAtRest = server.threads();
    // Whenever /readyz says ready, a trivial blocking call must find a slot (answered in time).
    prober$ = (async () => {
      while (!proberStop) {
        const ready = await server.probe('/readyz').catch(() => ({ status: 0 }));
        if (ready.status === 200) {
          const served = await prober.client
            .callTool({ name: 'trivial', arguments: {} }, CallToolResultSchema, { timeout: 3_000 })
            .then((result) => result.isError !== true)
            .catch(() => false);
          if (!served) readyButUnserved.push(new Date().toISOString());
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
  });

  after(async () => {
    proberStop = true;
    await prober$;
    await caller?.close();
    await prober?.close();
    await server?.stop();
  });

  test('the log says once per tool that it runs in a pool process, and why', () => {
    for (const name of ['argon_hash', 'sharp_blur']) {
      const lines = server
        .output()
        .split('\n')
        .filter((line) => line.startsWith(`weft: tool "${name}" loads native code`));
      assert.equal(lines.length, 1, server.output());
      assert.match(lines[0]!, /runs in a pool process/);
    }
  });

  for (const name of ['argon_hash', 'sharp_blur']) {
    for (const way of ['deadline', 'cancel'] as const) {
      test(`${name}: ${CALLS} calls stopped by a ${way}`, async () => {
        const slowest: number[] = [];
        for (let call = 0; call < CALLS; call++) {
          const signal = way === 'cancel' ? AbortSignal.timeout(CANCEL_AFTER_MS) : undefined;
          const outcome = await caller.client
            .callTool({ name, arguments: args(name, 'slow') }, CallToolResultSchema, {
              timeout: 20_000,
              ...(signal ? { signal } : {}),
            })
            .then(
              (result) => ({ result }),
              (error: Error) => ({ error }),
            );
          const answeredAt = Date.now();
          const processes = server.processes();
          if (way === 'deadline') {
            assert.ok(
              'result' in outcome,
              `call ${call}: ${'error' in outcome ? outcome.error.message : ''}`,
            );
            assert.equal(outcome.result.isError, true);
            assert.match(JSON.stringify(outcome.result.content), /timed out/);
          } else {
            assert.ok('error' in outcome, `call ${call} was not cancelled`);
          }
          assert.equal(server.ended(), undefined, `the server ended after call ${call}:\n${server.output()}`);
          slowest.push(await msUntilIdle(server, processes, answeredAt, 1_000));
        }
        const worst = Math.max(...slowest);
        assert.ok(worst <= 1_100, `CPU idle only ${worst} ms after an answer (all: ${slowest.join(', ')})`);
      });
    }
  }

  test('every call was answered once, and /readyz never said ready with no slot to run a call', async () => {
    for (const [id, count] of caller.answers)
      assert.ok(count <= 1, `request ${id} was answered ${count} times`);
    for (const [id, count] of prober.answers)
      assert.equal(count, 1, `probe call ${id} answered ${count} times`);
    // The deadlines' calls each got an answer; a cancelled call gets none (MCP).
    const answered = [...caller.answers.values()].filter((count) => count === 1).length;
    assert.ok(answered >= 2 * CALLS + 2, `only ${answered} answers`);
    assert.deepEqual(readyButUnserved, [], 'ready while a trivial call could not run');
  });

  test('no process or thread is left, and the server still serves', async () => {
    const until = Date.now() + 5_000;
    // One warm pool process stays for the native tools (the process pool keeps one warm), nothing more.
    while (server.processes().length > 1 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    assert.ok(server.processes().length <= 1, `processes left: ${server.processes().join(', ')}`);
    assert.ok(server.threads() <= threadsAtRest, `threads ${server.threads()} > ${threadsAtRest} at rest`);
    const fine = await caller.client.callTool({ name: 'trivial', arguments: {} }, CallToolResultSchema);
    assert.deepEqual(fine.content, [{ type: 'text', text: 'done' }]);
    assert.equal((await server.stats()).lostSlots, 0);
  });
});

/** Arguments that finish well within the deadline ('fast') or run well past it ('slow'). */
function args(name: string, speed: 'fast' | 'slow'): Record<string, unknown> {
  if (name.startsWith('argon')) {
    return speed === 'fast'
      ? { text: 'secret', memoryMb: 1, passes: 1 }
      : { text: 'secret', memoryMb: 256, passes: 40 };
  }
  return speed === 'fast' ? { size: 64, sigma: 1 } : { size: 3000, sigma: 60 };
}
