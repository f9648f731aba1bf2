/**
 * Graceful shutdown over stdio: on SIGTERM or SIGINT the server stops reading, lets in-flight calls
 * finish within `shutdownGraceMs`, cancels the rest, closes its pools and exits 0; a second signal
 * exits at once; and no worker, pool process or process a tool spawned outlives the server.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { descendantsOf } from '../../lib/engine/process-tree.js';
import { RawStdioClient, textOf } from './raw-stdio-client.js';

const SERVER = fileURLToPath(new URL('./fault-server.js', import.meta.url));

/** Alive and not a zombie (a zombie has exited; only its parent has not collected it yet). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function callMessage(id: number, name: string, args: Record<string, unknown>) {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } };
}

async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (!check() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
  return check();
}

describe('graceful shutdown over stdio', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(`${signal}: in-flight calls finish within the grace, the rest are cancelled, exit 0, nothing outlives it`, async () => {
      const client = new RawStdioClient(SERVER, ['--shutdown-grace-ms', '1500']);
      try {
        await client.initialize();
        const quick = client.call('sleep', { ms: 400 });
        const slowId = client.newId();
        client.send({
          jsonrpc: '2.0',
          id: slowId,
          method: 'tools/call',
          params: { name: 'sleep', arguments: { ms: 20_000 } },
        });
        // Work that would outlive a careless server: a pool process and a thread, both in execSync.
        const stuckId = client.newId();
        client.send({
          jsonrpc: '2.0',
          id: stuckId,
          method: 'tools/call',
          params: { name: 'exec_sleep_cancellable', arguments: { seconds: '30' } },
        });
        client.send({
          jsonrpc: '2.0',
          id: client.newId(),
          method: 'tools/call',
          params: { name: 'exec_sleep_thread', arguments: { seconds: '30' } },
        });
        assert.ok(
          await until(() => descendantsOf(client.pid).length >= 3, 5_000),
          'the pool process and both sleeps should be running',
        );
        const spawned = descendantsOf(client.pid);

        const start = Date.now();
        client.child.kill(signal);
        assert.equal(textOf(await quick), 'slept 400 ms', 'a call that fits in the grace is answered');
        const exit = await client.exited;
        const took = Date.now() - start;
        assert.deepEqual(exit, { code: 0, signal: null });
        assert.ok(took >= 1_400, `exited after ${took} ms, before the grace was over`);
        assert.ok(took < 6_000, `exited after ${took} ms`);
        const cut = client.answers.get(slowId) ?? [];
        assert.equal(cut.length, 1, 'a call cut by shutdown is answered once');
        assert.equal(
          (cut[0]?.error as { code?: number } | undefined)?.code,
          -32011,
          'a call cut by shutdown is told the server shut down',
        );
        assert.ok(
          await until(() => spawned.every((pid) => !isAlive(pid)), 2_000),
          `still alive after exit: ${spawned.filter(isAlive).join(', ')}`,
        );
        assert.deepEqual(client.garbage, []);
      } finally {
        client.kill();
      }
    });
  }

  test('Ctrl-C signals the whole process group: pool processes leave stopping to the server', async () => {
    const client = new RawStdioClient(SERVER, ['--shutdown-grace-ms', '3000'], process.env, true);
    try {
      await client.initialize();
      // A pool process that is still booting has not installed its handlers yet; use a warm one.
      assert.equal(textOf(await client.call('add_in_process', { a: 1, b: 1 })), '2');
      await new Promise((resolve) => setTimeout(resolve, 500)); // any other pool process boots too
      const running = client.call('spin_in_process', { ms: 800 });
      await new Promise((resolve) => setTimeout(resolve, 200));
      process.kill(-client.pid, 'SIGINT'); // what a terminal does on Ctrl-C
      assert.equal(
        textOf(await running),
        'spun 800 ms',
        'the call in the pool process finished within the grace',
      );
      assert.deepEqual(await client.exited, { code: 0, signal: null });
    } finally {
      client.kill();
    }
  });

  test('a second signal exits at once', async () => {
    const client = new RawStdioClient(SERVER, ['--shutdown-grace-ms', '20000']);
    try {
      await client.initialize();
      client.send({
        jsonrpc: '2.0',
        id: client.newId(),
        method: 'tools/call',
        params: { name: 'sleep', arguments: { ms: 20_000 } },
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      client.child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const start = Date.now();
      client.child.kill('SIGTERM');
      const exit = await client.exited;
      assert.ok(Date.now() - start < 1_500, `took ${Date.now() - start} ms after the second signal`);
      assert.notEqual(exit.code, null, 'it exits by itself, not by the signal');
    } finally {
      client.kill();
    }
  });

  test('a client that vanishes (broken pipe) ends the connection: no crash, work stopped, exit 0', async () => {
    const client = new RawStdioClient(SERVER);
    try {
      await client.initialize();
      client.send(callMessage(client.newId(), 'sleep', { ms: 300 }));
      client.send(callMessage(client.newId(), 'exec_sleep_cancellable', { seconds: '30' }));
      assert.ok(
        await until(() => descendantsOf(client.pid).length >= 2, 5_000),
        'the pool process should start',
      );
      const spawned = descendantsOf(client.pid);
      const start = Date.now();
      client.child.stdout!.destroy(); // the answers now hit a broken pipe
      client.child.stdin!.end();
      const exit = await client.exited;
      assert.deepEqual(exit, { code: 0, signal: null }, client.stderr);
      assert.doesNotMatch(client.stderr, /EPIPE|Unhandled/);
      assert.ok(Date.now() - start < 5_000, `took ${Date.now() - start} ms`);
      assert.ok(
        await until(() => spawned.every((pid) => !isAlive(pid)), 2_000),
        'a spawned process outlived it',
      );
    } finally {
      client.kill();
    }
  });

  test('even a crash of the server (an uncaught exception) leaves no child process behind', async () => {
    const client = new RawStdioClient(SERVER);
    try {
      await client.initialize();
      client.send(callMessage(client.newId(), 'exec_sleep_cancellable', { seconds: '30' }));
      client.send(callMessage(client.newId(), 'exec_sleep_thread', { seconds: '30' }));
      assert.ok(await until(() => descendantsOf(client.pid).length >= 3, 5_000), 'the sleeps should start');
      const spawned = descendantsOf(client.pid);
      await client.call('inline_async_throw');
      const exit = await client.exited;
      assert.notEqual(exit.code, 0, 'the server crashed, as Node does on an uncaught exception');
      assert.ok(
        await until(() => spawned.every((pid) => !isAlive(pid)), 2_000),
        `still alive after the crash: ${spawned.filter(isAlive).join(', ')}`,
      );
    } finally {
      client.kill();
    }
  });

  test('end of stdin: calls in flight are answered, then the server exits 0', async () => {
    const client = new RawStdioClient(SERVER);
    await client.initialize();
    const pending = client.call('sleep', { ms: 300 });
    const exit = client.close();
    assert.equal(textOf(await pending), 'slept 300 ms');
    assert.deepEqual(await exit, { code: 0, signal: null });
  });
});
