/**
 * Every process a call starts dies with the call, and process isolation is exact under a storm.
 *
 * - Deadline storms on a thread tool and on a process tool that start processes every millisecond
 *   from shortly before their deadline until they are stopped (a shell with a background sleep, a
 *   detached sleep, a shell with an environment of its own), so that the last fork lands as the
 *   deadline passes (execSync('sleep') every fifth call): once
 *   every slot is free again, no `sh` or `sleep` they started is alive (counted in /proc).
 * - A storm of process-isolated calls that stop in every way (a CPU loop, execSync, grandchildren,
 *   a detached child, Atomics.wait, a checkpoint at the deadline) between calls that finish: every
 *   call is answered once, with its own outcome (never another call's death, never an internal
 *   message as a tool error).
 * - A server that exits while its calls are starting processes leaves none of them behind.
 *
 * Each storm makes WEFT_CHILDREN_STORM_CALLS calls (100 by default, so that `npm test` stays
 * short; the full count is `WEFT_CHILDREN_STORM_CALLS=1000`).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { McpServer } from '../../lib/index.js';
import { type InProcessClient as Client, InProcessClient, type Reply } from '../support/in-process-client.js';
import { connectOverStdio } from '../support/sdk-stdio.js';
import { CHILD_SPAWNING_TOOLS, STORM_TAG } from './child-spawning-tools.js';

const CALLS = Number(process.env.WEFT_CHILDREN_STORM_CALLS ?? 100);
const SERVER = fileURLToPath(new URL('./child-spawning-server.js', import.meta.url));
const THREADS = 4;

/** Live `sh` and `sleep` processes this run's tools started (by environment or command line). */
function stormChildren(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      if (comm !== 'sh' && comm !== 'sleep') continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat[stat.lastIndexOf(')') + 2] === 'Z') continue;
      const environ = readFileSync(`/proc/${entry}/environ`, 'latin1');
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'latin1');
      if (environ.includes(`WEFT_STORM_TAG=${STORM_TAG}\0`) || cmdline.includes(STORM_TAG))
        found.push(Number(entry));
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}

function newServer(): McpServer {
  const server = new McpServer({ name: 'children-storm', version: '0', pool: { maxThreads: THREADS } });
  for (const tool of CHILD_SPAWNING_TOOLS) server.tool(tool);
  return server;
}

/** Makes the calls, `callers` at a time; returns each call's replies (every message with its id). */
async function storm(
  client: Client,
  calls: Array<{ tool: string; way: string }>,
  callers: number,
): Promise<Array<{ way: string; replies: Reply[] }>> {
  const ids: Array<{ id: number; way: string }> = [];
  let next = 0;
  const caller = async () => {
    while (next < calls.length) {
      const { tool, way } = calls[next++]!;
      const id = 1_000_000 + ids.length;
      ids.push({ id, way });
      await client.request('tools/call', { name: tool, arguments: { way } }, id);
    }
  };
  await Promise.all(Array.from({ length: callers }, caller));
  // Anything sent twice would have arrived by now, with the slots' own settling.
  await new Promise((resolve) => setTimeout(resolve, 200));
  return ids.map(({ id, way }) => ({
    way,
    replies: client.received.filter((message) => 'id' in message && message.id === id) as Reply[],
  }));
}

/**
 * Runs a storm on a fresh server, then checks what every storm must leave: once the slots are free
 * (a call's slot is busy until what it started is gone), no process any call started.
 */
async function onStormServer(run: (client: Client) => Promise<void>): Promise<void> {
  const server = newServer();
  const client = new InProcessClient(server);
  try {
    await run(client);
    await untilSlotsFree(server);
    assert.deepEqual(stormChildren(), [], 'processes started by stopped calls are still running');
  } finally {
    client.close();
    await server.close();
  }
}

async function untilSlotsFree(server: McpServer): Promise<void> {
  const until = Date.now() + 20_000;
  while (server.stats.freeThreads !== THREADS) {
    assert.ok(Date.now() < until, `the slots never came back: ${JSON.stringify(server.stats)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const timedOut = (reply: Reply | undefined) =>
  reply?.result?.isError === true && /timed out/.test(reply.result.content?.[0]?.text ?? '');

for (const [isolation, tool] of [
  ['thread', 'storm_thread_children'],
  ['process', 'storm_process_children'],
] as const) {
  test(`a deadline storm on a ${isolation} tool that forks to its last millisecond leaves no child process`, async () => {
    await onStormServer(async (client) => {
      const calls = Array.from({ length: CALLS }, (_, n) => ({ tool, way: n % 5 === 4 ? 'exec' : 'fork' }));
      const started = new Set<number>();
      const sampler = setInterval(() => {
        for (const pid of stormChildren()) started.add(pid);
      }, 50);
      const results = await storm(client, calls, THREADS).finally(() => clearInterval(sampler));
      assert.ok(started.size > 0, 'the calls should have started processes');
      for (const { way, replies } of results) {
        assert.equal(replies.length, 1, `a ${way} call was answered ${replies.length} times`);
        assert.ok(timedOut(replies[0]), `a ${way} call: ${JSON.stringify(replies[0])}`);
      }
    });
  });
}

test('process-isolated calls that stop in every way each get their own outcome, once', async () => {
  // Calls that stop at their deadline on the process's own clock, between calls that finish at once,
  // are the ones that made a killed process run the next call: they come most often.
  const ways = ['cpu', 'exec', 'grandchildren', 'detached', 'atomics'];
  ways.push(...ways.flatMap(() => ['checkpoint', 'add']));
  await onStormServer(async (client) => {
    const calls = Array.from({ length: CALLS }, (_, n) => ({
      tool: ways[n % ways.length] === 'add' ? 'storm_process_add' : 'storm_process_children',
      way: ways[n % ways.length]!,
    }));
    const results = await storm(client, calls, 8);
    const wrong = results.filter(({ way, replies }) => {
      if (replies.length !== 1) return true;
      const [reply] = replies;
      if (way === 'add')
        return reply?.result?.isError === true || reply?.result?.content?.[0]?.text !== 'added';
      return !timedOut(reply);
    });
    assert.deepEqual(
      wrong.slice(0, 5).map(({ way, replies }) => ({ way, replies })),
      [],
      `${wrong.length} of ${results.length} calls got an answer that is not their own`,
    );
  });
});

test('a server that exits while its calls start processes leaves none of them running', async () => {
  const session = await connectOverStdio(SERVER, [], { WEFT_STORM_TAG: STORM_TAG });
  const running = [
    'fork_until_server_stops',
    'fork_until_server_stops',
    'fork_until_server_stops_process',
    'fork_until_server_stops_process',
  ].map((name) => session.client.callTool({ name, arguments: { way: 'fork' } }).catch(() => undefined));
  try {
    const until = Date.now() + 10_000;
    while (stormChildren().length < 12) {
      assert.ok(Date.now() < until, 'the calls should be starting processes');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await session.close(); // end of stdin: the server stops and exits
    await Promise.all(running);
    const exited = Date.now() + 5_000;
    while (stormChildren().length > 0 && Date.now() < exited) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(stormChildren(), [], 'processes outlived the server');
  } finally {
    try {
      process.kill(session.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
});
