/**
 * The fault matrix: every way a tool can misbehave, each run while healthy calls are in flight,
 * against a real server process over stdio. Each test asserts the faulty call's outcome AND that
 * its neighbours complete; the last test asserts that, across the whole matrix, every id was
 * answered exactly once and nothing but JSON-RPC ever reached stdout.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { descendantsOf } from '../../lib/engine/process-tree.js';
import { errorCode, isToolError, type Message, RawStdioClient, textOf } from './raw-stdio-client.js';

const SERVER = fileURLToPath(new URL('./fault-server.js', import.meta.url));
const SECRET = 'weft-test-secret-value';

let client: RawStdioClient;

/** Calls that must keep working whatever their neighbour does: inline, async and pooled. */
async function neighbours(): Promise<void> {
  const [echo, slept, sum] = await Promise.all([
    client.call('echo', { text: 'still here' }),
    client.call('sleep', { ms: 50 }),
    client.call('add_in_thread', { a: 2, b: 3 }),
  ]);
  assert.equal(textOf(echo), 'still here');
  assert.equal(textOf(slept), 'slept 50 ms');
  assert.equal(textOf(sum), '5');
}

/** Runs `fault` while neighbours are in flight, then once more after it, and returns its answer. */
async function amid(fault: () => Promise<Message>): Promise<Message> {
  const [answer] = await Promise.all([fault(), neighbours()]);
  await neighbours();
  return answer;
}

async function timed(run: () => Promise<Message>): Promise<{ answer: Message; ms: number }> {
  const start = performance.now();
  const answer = await run();
  return { answer, ms: performance.now() - start };
}

function assertNoStack(answer: Message): void {
  const text = JSON.stringify(answer);
  assert.doesNotMatch(text, /\n\s+at /, 'a stack trace reached the client');
  assert.doesNotMatch(text, /file:\/\/|\/work\/|node:internal/, 'a source path reached the client');
}

/** Live processes whose command line contains `marker` (what `pgrep -f` does, read from /proc). */
function processesMatching(marker: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const commandLine = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (commandLine.includes(marker)) found.push(entry);
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

async function eventually(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return check();
}

describe('fault matrix over stdio', () => {
  before(async () => {
    client = new RawStdioClient(SERVER, ['--threads', '2', '--max-result-bytes', '1048576'], {
      ...process.env,
      WEFT_SECRET: SECRET,
    });
    await client.initialize();
  });

  after(async () => {
    client.kill();
    await client.exited;
  });

  test('an infinite loop is answered as a timeout and its thread is stopped', async () => {
    const answer = await amid(() => client.call('loop_forever'));
    assert.ok(isToolError(answer));
    assert.match(textOf(answer), /timed out.*400 ms/);
  });

  test('a handler that throws becomes a tool error with its message and no stack', async () => {
    const answer = await amid(() => client.call('throws_error'));
    assert.ok(isToolError(answer));
    assert.equal(textOf(answer), 'the tool broke on purpose');
    assertNoStack(answer);
    const inline = await client.call('inline_throws');
    assert.equal(textOf(inline), 'inline handler failed on purpose');
    assertNoStack(inline);
  });

  test('a rejected promise becomes a tool error', async () => {
    const answer = await amid(() => client.call('rejects'));
    assert.ok(isToolError(answer));
    assert.equal(textOf(answer), 'the promise was rejected on purpose');
  });

  test('process.exit() in a worker is -32603 with a redacted message, and the server serves on', async () => {
    const answer = await amid(() => client.call('exits_process'));
    assert.equal(errorCode(answer), -32603);
    assert.match((answer.error as { message: string }).message, /stopped unexpectedly/);
    assertNoStack(answer);
    assert.match(client.stderr, /exits_process.*died/, 'the details go to the server log');
  });

  test('heap exhaustion under resourceLimits is -32603, and the server serves on', async () => {
    const answer = await amid(() => client.call('exhausts_heap'));
    assert.equal(errorCode(answer), -32603);
    assertNoStack(answer);
  });

  test('heap exhaustion in a pool process (maxOldGenerationSizeMb) is -32603, and the server serves on', async () => {
    const answer = await amid(() => client.call('exhausts_heap_process'));
    assert.equal(errorCode(answer), -32603);
    assertNoStack(answer);
    assert.equal(textOf(await client.call('add_in_process', { a: 1, b: 1 })), '2');
  });

  test('a stack overflow becomes a tool error', async () => {
    const answer = await amid(() => client.call('overflows_stack'));
    assert.ok(isToolError(answer));
    assert.match(textOf(answer), /call stack/i);
  });

  test('a stray promise rejection in tool code is logged, not fatal: inline, thread or process', async () => {
    const [inline, pooled, child] = await amid(async () => {
      const all = await Promise.all([
        client.call('inline_stray_rejection'),
        client.call('stray_rejection'),
        client.call('stray_rejection_process'),
      ]);
      return all as unknown as Message;
    }).then((all) => all as unknown as Message[]);
    assert.equal(textOf(inline!), 'answered');
    assert.equal(textOf(pooled!), 'answered');
    assert.equal(textOf(child!), 'answered', 'the pool process survived its stray rejection');
    assert.ok(
      await eventually(() => /stray rejection from tool code/.test(client.stderr), 2_000),
      'the rejection should be reported on stderr',
    );
    assert.equal(client.child.exitCode, null, 'the server is still running');
  });

  test('a returned function cannot be cloned: a tool error, not a dead worker', async () => {
    const answer = await amid(() => client.call('returns_function'));
    assert.ok(isToolError(answer));
    assert.match(textOf(answer), /cannot be sent as JSON/);
  });

  test('a result over maxResultBytes becomes a tool error naming the limit', async () => {
    const answer = await amid(() => client.call('big_result', { bytes: 2 * 1024 * 1024 }));
    assert.ok(isToolError(answer));
    assert.match(textOf(answer), /maxResultBytes/);
    const small = await client.call('big_result', { bytes: 1000 });
    assert.equal(textOf(small).length, 1000);
  });

  test('a pooled handler that ignores its flag is stopped after the grace', async () => {
    const { answer, ms } = await timed(() => amid(() => client.call('ignores_flag')));
    assert.match(textOf(answer), /timed out.*300 ms/);
    assert.ok(ms < 5_000, `took ${ms} ms`);
  });

  test('an inline handler that ignores its signal still answers at its deadline', async () => {
    const answer = await amid(() => client.call('inline_ignores_signal'));
    assert.ok(isToolError(answer));
    assert.match(textOf(answer), /timed out.*300 ms/);
  });

  test('Atomics.wait past the deadline: timeout, in a thread and in a process', async () => {
    const [thread, child] = await amid(async () => {
      const both = await Promise.all([client.call('atomics_wait'), client.call('atomics_wait_process')]);
      return both as unknown as Message;
    }).then((both) => both as unknown as Message[]);
    assert.match(textOf(thread!), /timed out.*400 ms/);
    assert.match(textOf(child!), /timed out.*400 ms/);
  });

  test("execSync('sleep') in a thread: the timeout is answered on time though the thread is pinned", async () => {
    const { answer, ms } = await timed(() => client.call('exec_sleep_thread', { seconds: '1.5' }));
    assert.match(textOf(answer), /timed out.*500 ms/);
    assert.ok(ms < 1_400, `answered after ${ms} ms`);
    await neighbours();
  });

  test("execSync('sleep 30') with isolation 'process': timeout on time, and no sleep process is left", async (t) => {
    const seconds = `30.${process.pid}${Date.now() % 1000}`;
    let answer: Message | undefined;
    let ms = 0;
    await amid(async () => {
      ({ answer, ms } = await timed(() => client.call('exec_sleep_process', { seconds })));
      return answer!;
    });
    assert.match(textOf(answer!), /timed out.*500 ms/);
    t.diagnostic(`500 ms deadline answered after ${ms.toFixed(0)} ms`);
    // The deadline is 500 ms; the answer must not wait for the kill (generous margin for CI).
    assert.ok(ms < 1_000, `answered after ${ms} ms`);
    assert.ok(
      await eventually(() => processesMatching(`sleep ${seconds}`).length === 0, 2_000),
      `sleep ${seconds} outlived its call`,
    );
  });

  test('a process call abandoned before its process started is killed the moment it starts', async () => {
    const seconds = `28.${process.pid}${Date.now() % 1000}`;
    const answer = await amid(() => client.call('exec_sleep_cold_start', { seconds }));
    assert.match(textOf(answer), /timed out.*50 ms/);
    // The process starts later, announces itself, and is killed before its sleep can live long.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    assert.ok(
      await eventually(() => processesMatching(`sleep ${seconds}`).length === 0, 2_000),
      `sleep ${seconds} outlived its call`,
    );
    const again = await client.call('exec_sleep_cold_start', { seconds });
    assert.match(textOf(again), /timed out/);
  });

  test("a cancelled call with isolation 'process' gets no answer and its sleep is killed", async () => {
    const seconds = `29.${process.pid}${Date.now() % 1000}`;
    const id = `cancel-me-${Date.now()}`;
    client.send({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'exec_sleep_cancellable', arguments: { seconds } },
    });
    assert.ok(
      await eventually(() => processesMatching(`sleep ${seconds}`).length > 0, 5_000),
      'sleep never started',
    );
    client.notify('notifications/cancelled', { requestId: id, reason: 'test' });
    assert.ok(
      await eventually(() => processesMatching(`sleep ${seconds}`).length === 0, 2_000),
      'the sleep outlived the cancel',
    );
    await neighbours();
    assert.equal(client.answers.get(id), undefined, 'a cancelled call was answered');
  });

  test("process.exit() with isolation 'process' is -32603, and the next process call works", async () => {
    const answer = await amid(() => client.call('exits_in_process'));
    assert.equal(errorCode(answer), -32603);
    const sum = await client.call('add_in_process', { a: 20, b: 22 });
    assert.equal(textOf(sum), '42');
  });

  test('progress and logs from a pool process arrive before its result', async () => {
    const id = `progress-${Date.now()}`;
    await client.request('logging/setLevel', { level: 'warning' });
    const answer = await client.request(
      'tools/call',
      { name: 'progress_in_process', arguments: {}, _meta: { progressToken: id } },
      id,
    );
    assert.equal(textOf(answer), 'done');
    const answerAt = client.messages.indexOf(answer);
    const progress = client.messages.filter(
      (message) =>
        message.method === 'notifications/progress' &&
        (message.params as { progressToken?: unknown }).progressToken === id,
    );
    assert.deepEqual(
      progress.map((message) => (message.params as { progress: number }).progress),
      [1, 2, 3],
    );
    assert.ok(progress.every((message) => client.messages.indexOf(message) < answerAt));
    const log = client.messages.find(
      (message) =>
        message.method === 'notifications/message' &&
        JSON.stringify(message.params).includes('a pool process'),
    );
    assert.ok(log && client.messages.indexOf(log) < answerAt, 'the log message should precede the result');
    await client.request('logging/setLevel', { level: 'debug' });
  });

  test('an idle pool process killed from outside is logged and replaced; the server serves on', async () => {
    assert.equal(textOf(await client.call('add_in_process', { a: 1, b: 2 })), '3');
    const poolProcesses = descendantsOf(client.pid).filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('process-entry');
      } catch {
        return false;
      }
    });
    assert.ok(poolProcesses.length > 0, 'a warm pool process should be running');
    for (const pid of poolProcesses) process.kill(pid, 'SIGKILL');
    assert.ok(
      await eventually(() => /a pool process stopped/.test(client.stderr), 2_000),
      'the death is logged',
    );
    assert.equal(client.child.exitCode, null, 'the server is still running');
    await neighbours();
    assert.equal(textOf(await client.call('add_in_process', { a: 2, b: 2 })), '4');
  });

  test('console.log in tool code never reaches the protocol stream', async () => {
    const [thread, child] = await Promise.all([
      client.call('prints_to_stdout'),
      client.call('prints_in_process'),
    ]);
    assert.equal(textOf(thread), 'printed');
    assert.equal(textOf(child), 'printed');
    assert.deepEqual(client.garbage, []);
    assert.ok(
      await eventually(() => /this line is not JSON-RPC either/.test(client.stderr), 2_000),
      'the printed lines should go to stderr',
    );
  });

  test("workers do not see the server's environment unless the tool opts in", async () => {
    const read = async (tool: string, name: string) =>
      (JSON.parse(textOf(await client.call(tool, { name }))) as { value: string | null }).value;
    assert.equal(await read('env_default', 'WEFT_SECRET'), null);
    assert.equal(await read('env_process', 'WEFT_SECRET'), null);
    assert.equal(await read('env_record', 'WEFT_SECRET'), null);
    assert.equal(await read('env_record', 'WEFT_GRANTED'), 'granted-value');
    assert.equal(await read('env_shared', 'WEFT_SECRET'), SECRET);
    assert.equal(await read('env_default', 'PATH'), process.env.PATH ?? null, 'PATH is part of the baseline');
  });

  test('across the matrix: every id answered exactly once, stdout carried only JSON-RPC, ping answers', async () => {
    const ping = await client.request('ping');
    assert.deepEqual(ping.result, {});
    for (const [id, list] of client.answers)
      assert.equal(list.length, 1, `id ${id} was answered ${list.length} times`);
    assert.deepEqual(client.garbage, []);
  });
});
