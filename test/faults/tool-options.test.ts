/**
 * The options behind the fault-handling features, checked where they are cheap to check: `isolation`
 * and `env` are refused at registration when malformed, the worker environment holds only the
 * baseline unless a tool opts in, and a process tree is killed whole.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { descendantsOf, killProcessTree } from '../../lib/engine/process-tree.js';
import { envKey, workerEnv } from '../../lib/engine/worker-env.js';
import { McpServer } from '../../lib/index.js';

const blocking = {
  inputSchema: { type: 'object' },
  blocking: true,
  module: new URL('./process-fault-tools.js', import.meta.url).href,
  export: 'addInProcess',
} as const;

function register(definition: Record<string, unknown>): void {
  new McpServer({ name: 't', version: '0' }).tool(definition as never);
}

test('isolation must be thread or process', () => {
  assert.throws(
    () => register({ name: 'a', ...blocking, isolation: 'proces' }),
    /isolation must be 'thread' or 'process'/,
  );
  assert.doesNotThrow(() => register({ name: 'a', ...blocking, isolation: 'process' }));
  assert.doesNotThrow(() => register({ name: 'a', ...blocking, isolation: 'thread' }));
});

test('env must be true or a record of strings', () => {
  assert.throws(() => register({ name: 'a', ...blocking, env: { PORT: 8080 } }), /env\.PORT is number/);
  assert.throws(() => register({ name: 'a', ...blocking, env: 'yes' }), /env must be true/);
  assert.doesNotThrow(() => register({ name: 'a', ...blocking, env: { PORT: '8080' } }));
  assert.doesNotThrow(() => register({ name: 'a', ...blocking, env: true }));
});

test('isolation and env are refused on inline tools, with the fix in the message', () => {
  const inline = { inputSchema: { type: 'object' }, handler: () => 'x' };
  assert.throws(
    () => register({ name: 'a', ...inline, isolation: 'process' }),
    /blocking tools only; add blocking: true/,
  );
  assert.throws(() => register({ name: 'a', ...inline, env: true }), /blocking tools only/);
});

test('a process-isolated tool takes a heap cap but not thread-only limits', () => {
  assert.doesNotThrow(() =>
    register({
      name: 'a',
      ...blocking,
      isolation: 'process',
      resourceLimits: { maxOldGenerationSizeMb: 64 },
    }),
  );
  assert.throws(
    () => register({ name: 'a', ...blocking, isolation: 'process', resourceLimits: { stackSizeMb: 4 } }),
    /stackSizeMb applies to threads only/,
  );
});

test('the worker environment is a non-secret baseline unless the tool opts in', () => {
  const server = { PATH: '/bin', LANG: 'C.UTF-8', DATABASE_URL: 'postgres://secret', API_KEY: 'k' };
  assert.deepEqual(workerEnv(undefined, server), { PATH: '/bin', LANG: 'C.UTF-8' });
  assert.deepEqual(workerEnv({ API_KEY: 'scoped' }, server), {
    PATH: '/bin',
    LANG: 'C.UTF-8',
    API_KEY: 'scoped',
  });
  assert.equal(workerEnv(true, server), undefined, 'true inherits the whole environment');
  assert.equal(envKey({ B: '1', A: '2' }), envKey({ A: '2', B: '1' }), 'same variables, same pool');
  assert.notEqual(envKey(undefined), envKey(true));
});

test('killProcessTree kills a process and every process below it', async () => {
  const root = spawn('sh', ['-c', 'sleep 41 & sh -c "sleep 42" & wait'], { stdio: 'ignore' });
  const until = Date.now() + 5_000;
  while (descendantsOf(root.pid!).length < 3 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const below = descendantsOf(root.pid!);
  assert.ok(below.length >= 3, `expected the sleeps to be running, found ${below.length} descendants`);
  const exited = new Promise((resolve) => root.once('exit', resolve));
  const killed = killProcessTree(root.pid!);
  assert.ok(killed.length >= 4);
  await exited;
  const alive = (pid: number) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat[stat.lastIndexOf(')') + 2] !== 'Z';
    } catch {
      return false;
    }
  };
  const deadline = Date.now() + 2_000;
  while (below.some(alive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(below.filter(alive), []);
});
