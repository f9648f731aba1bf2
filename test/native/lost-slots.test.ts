/**
 * Slots that cannot run a call are counted, said and acted on:
 * - a thread stuck in native code (open() of a FIFO) past its deadline is terminated but cannot exit: its slot is lost,
 *   the log names the tool, `server.stats.lostSlots` counts it, `/readyz` answers 503 "unavailable"
 *   once no slot can run a call, and `/healthz` fails once that has lasted `lostSlotsLivenessMs`;
 *   all turn back when the threads exit;
 * - tools built on argon2 and sharp pinned to `isolation: 'thread'`: their threads are never
 *   terminated (never an abort), an abandoned call is answered at once and its slot counted lost
 *   until its handler returns, and the log says so.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { until } from '../support/until.js';
import {
  type CountingClient,
  countingClient,
  type NativeServer,
  startNativeServer,
} from './native-process.js';

/** Each pinned call waits out its handler (seconds): 2 per case in `npm test`, WEFT_NATIVE_CALLS for more. */
const CALLS = Number(process.env.WEFT_NATIVE_CALLS ?? 2);

describe('slots held by threads stuck in native code', () => {
  let server: NativeServer;
  let caller: CountingClient;
  const dir = mkdtempSync(join(tmpdir(), 'weft-lost-slots-'));
  before(async () => {
    server = await startNativeServer(['--threads', '2', '--timeout-ms', '10000', '--liveness-ms', '1000']);
    caller = await countingClient(server.url);
  });
  after(async () => {
    await caller?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('are lost: /readyz says unavailable, /healthz fails past the bound, both come back', async () => {
    assert.equal((await server.probe('/readyz')).status, 200);
    // Both threads load the tools' module first, so that both calls below are inside open() by
    // their deadline (a load is not cut short: its thread would exit, its slot not be lost). Each
    // warm call is busy long enough that the other cannot land on the same thread after it.
    const warm = [0, 1].map(() =>
      caller.client.callTool({ name: 'native_busy', arguments: { seconds: '0.5' } }, CallToolResultSchema),
    );
    await Promise.all(warm);
    // native_blocked's own deadline is 1500 ms: both threads are terminated inside open() of a
    // FIFO, and stay there (their slots lost) until this test writes to it.
    const fifos = [0, 1].map((n) => join(dir, `fifo-${n}`));
    for (const fifo of fifos) execFileSync('mkfifo', [fifo]);
    const calls = fifos.map((fifo) =>
      caller.client.callTool({ name: 'native_blocked', arguments: { fifo } }, CallToolResultSchema),
    );
    for (const result of await Promise.all(calls)) assert.match(JSON.stringify(result.content), /timed out/);
    const notReady = await until(
      () => server.probe('/readyz'),
      (answer) => answer.status === 503,
      5_000,
    );
    assert.match(notReady.body, /"unavailable".*no pool slot can run a call.*native_blocked/);
    assert.equal((await server.stats()).lostSlots, 2);
    const stuck = await until(
      () => server.probe('/healthz'),
      (answer) => answer.status === 503,
      6_000,
    );
    assert.match(stuck.body, /"stuck".*lostSlotsLivenessMs/);
    assert.match(
      server.output(),
      /a pool slot is lost: the thread running tool "native_blocked" was terminated/,
    );
    // A writer lets each open() return: the threads exit, the slots come back.
    for (const fifo of fifos) writeFileSync(fifo, 'released');
    await until(
      () => server.stats(),
      (stats) => stats.lostSlots === 0,
      20_000,
    );
    assert.equal((await server.probe('/readyz')).status, 200);
    assert.equal((await server.probe('/healthz')).status, 200);
    assert.match(server.output(), /the pool slot held by tool "native_blocked" is back/);
    const fine = await caller.client.callTool({ name: 'trivial', arguments: {} }, CallToolResultSchema);
    assert.deepEqual(fine.content, [{ type: 'text', text: 'done' }]);
  });
});

describe("native tools pinned to isolation: 'thread'", () => {
  let server: NativeServer;
  let caller: CountingClient;
  before(async () => {
    server = await startNativeServer(['--threads', '2', '--timeout-ms', '300']);
    caller = await countingClient(server.url);
  });
  after(async () => {
    await caller?.close();
    await server?.stop();
    if (process.env.WEFT_NATIVE_DUMP) process.stderr.write(server.output());
    assert.equal(server.ended(), '0', `the server did not stop cleanly:\n${server.output()}`);
  });

  for (const name of ['argon_hash_thread', 'sharp_blur_thread']) {
    for (const way of ['deadline', 'cancel'] as const) {
      test(`${name}: ${CALLS} calls stopped by a ${way}, never an abort`, async () => {
        for (let call = 0; call < CALLS; call++) {
          const signal = way === 'cancel' ? AbortSignal.timeout(150) : undefined;
          const outcome = await caller.client
            .callTool({ name, arguments: slowArgs(name, 128, 16) }, CallToolResultSchema, {
              timeout: 20_000,
              ...(signal ? { signal } : {}),
            })
            .then(
              (result) => ({ result }),
              (error: Error) => ({ error }),
            );
          if (way === 'cancel') assert.ok('error' in outcome, `call ${call} was not cancelled`);
          else
            assert.ok('result' in outcome && outcome.result.isError === true, `call ${call}: not a timeout`);
          assert.equal(server.ended(), undefined, `the server ended after call ${call}:\n${server.output()}`);
          // The handler is waited for, not terminated: its slot comes back when it returns.
          await until(
            () => server.stats(),
            (stats) => stats.lostSlots === 0 && stats.freeThreads === 2,
            30_000,
          );
        }
        const told = server
          .output()
          .split('\n')
          .filter((line) => line.startsWith(`weft: tool "${name}" loads native code`));
        assert.equal(told.length, 1, server.output());
        assert.match(told[0]!, /pinned to threads.*not terminated/);
        for (const [id, count] of caller.answers)
          assert.ok(count <= 1, `request ${id} was answered ${count} times`);
      });
    }
  }

  test('two abandoned calls hold both slots: /readyz is 503 until their handlers return', async () => {
    // Both native threads load the module first (a call abandoned while its thread loads holds
    // nothing): rounds of two quick calls, whatever their outcome, then both slots free.
    for (let round = 0; round < 3; round++) {
      await Promise.all(
        [0, 1].map(() =>
          caller.client
            .callTool(
              { name: 'argon_hash_thread', arguments: { text: 'x', memoryMb: 1, passes: 1 } },
              CallToolResultSchema,
            )
            .catch(() => undefined),
        ),
      );
    }
    await until(
      () => server.stats(),
      (stats) => stats.lostSlots === 0 && stats.freeThreads === 2,
      30_000,
    );
    // The second call starts once the first holds its thread, so that each is running its handler
    // when the deadline comes (a call abandoned before it started holds nothing).
    const hash = () =>
      caller.client.callTool(
        { name: 'argon_hash_thread', arguments: slowArgs('argon', 256, 24) },
        CallToolResultSchema,
        { timeout: 20_000 },
      );
    const first = hash();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const calls = [first, hash()];
    for (const result of await Promise.all(calls)) assert.equal(result.isError, true);
    const notReady = await until(
      () => server.probe('/readyz'),
      (answer) => answer.status === 503,
      2_000,
    );
    assert.match(notReady.body, /argon_hash_thread/);
    assert.match(
      server.output(),
      /a pool slot is lost: tool "argon_hash_thread" loads native code and is pinned/,
    );
    await until(
      () => server.probe('/readyz'),
      (answer) => answer.status === 200,
      30_000,
    );
    const fine = await caller.client.callTool({ name: 'trivial', arguments: {} }, CallToolResultSchema);
    assert.deepEqual(fine.content, [{ type: 'text', text: 'done' }]);
    assert.equal(server.ended(), undefined);
  });
});

/** Arguments that run well past a 300 ms deadline and return within seconds. */
function slowArgs(name: string, memoryMb: number, passes: number): Record<string, unknown> {
  return name.startsWith('argon') ? { text: 'secret', memoryMb, passes } : { size: 1600, sigma: 40 };
}
