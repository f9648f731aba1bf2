/**
 * `weft list`, `weft call` and `weft inspect` as a user runs them: the real command in a child
 * process against a weft server over Streamable HTTP (both eras) and a server module over stdio;
 * arguments typed by the tool's schema, progress on a terminal only, Ctrl-C cancelling the call.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { McpServer } from '../../lib/index.js';

const CLI = fileURLToPath(new URL('../../lib/cli.js', import.meta.url));
const SERVED = fileURLToPath(new URL('../support/cli-served-server.js', import.meta.url));

let cancelled = 0;
const server = new McpServer({ name: 'cli-target', version: '2.0.0', pool: { maxThreads: 1 } })
  .tool({
    name: 'add',
    description: 'Adds two integers.\nSecond line not listed.',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'integer' }, b: { type: 'integer' }, label: { type: 'string' } },
      required: ['a', 'b'],
    },
    handler: ({ a, b, label }) => `${label ?? 'sum'}: ${a + b}`,
  })
  .tool({
    name: 'steps',
    inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    handler: async ({ n }, ctx) => {
      for (let step = 1; step <= n; step++) {
        ctx.progress(step, n, `step ${step}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return 'stepped';
    },
  })
  .tool({
    name: 'wait',
    inputSchema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] },
    handler: ({ ms }, ctx) =>
      new Promise((resolve) => {
        const timer = setTimeout(() => resolve('waited'), ms);
        ctx.signal.addEventListener('abort', () => {
          cancelled++;
          clearTimeout(timer);
        });
      }),
  })
  .tool({
    name: 'fails',
    inputSchema: { type: 'object' },
    handler: () => ({ content: [{ type: 'text', text: 'nope' }], isError: true }),
  })
  .prompt({ name: 'greet', arguments: [{ name: 'who', required: true }], get: ({ who }) => `hi ${who}` });

let url: string;
before(async () => {
  await server.listen({ http: { port: 0, host: '127.0.0.1' }, handleSignals: false });
  url = `http://127.0.0.1:${server.addresses.http!.port}/mcp`;
});
after(() => server.close());

const weft = async (...args: string[]) => {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], {
      timeout: 30_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
};

describe('weft call', () => {
  for (const protocol of ['modern', 'legacy'] as const) {
    it(`prints the result, with key=value typed by the schema (${protocol})`, async () => {
      const result = await weft('call', url, 'add', 'a=30', 'b=12', 'label=007', '--protocol', protocol);
      assert.deepEqual([result.code, result.stdout], [0, '007: 42\n']);
    });
  }

  it('shows no progress when stderr is not a terminal: the result alone, on stdout', async () => {
    const result = await weft('call', url, 'steps', 'n=3');
    assert.deepEqual([result.code, result.stdout, result.stderr], [0, 'stepped\n', '']);
  });

  it('shows progress as one line rewritten in place on a terminal, and none with --quiet', async (t) => {
    if (spawnSync('script', ['--version']).status !== 0) {
      t.skip('util-linux script (a pseudo-terminal) is not installed');
      return;
    }
    // Asynchronously: the server answering the call lives in this very process.
    const onTerminal = async (...args: string[]) =>
      (
        await promisify(execFile)(
          'script',
          ['-qfec', [process.execPath, CLI, ...args].join(' '), '/dev/null'],
          { encoding: 'utf8', timeout: 30_000 },
        )
      ).stdout;
    const CLEAR = `\r${String.fromCharCode(27)}[2K`;
    const shown = await onTerminal('call', url, 'steps', 'n=3');
    assert.ok(shown.includes(`${CLEAR}progress 1/3 step 1`), JSON.stringify(shown));
    assert.equal(shown.indexOf('\n'), shown.length - 1, 'one line in all: no progress ends a line');
    assert.ok(shown.endsWith(`${CLEAR}stepped\r\n`), 'the line is cleared before the result');
    const quiet = await onTerminal('call', url, 'steps', 'n=3', '--quiet');
    assert.doesNotMatch(quiet, /progress/);
    assert.match(quiet, /stepped/);
  });

  it('exits 1 on an isError result, 2 on an unknown tool or a mistyped argument', async () => {
    const failed = await weft('call', url, 'fails');
    assert.deepEqual([failed.code, failed.stderr.trim()], [1, 'nope']);
    const unknown = await weft('call', url, 'nosuch');
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no tool "nosuch"/);
    const mistyped = await weft('call', url, 'add', 'a=x', 'b=1');
    assert.equal(mistyped.code, 2);
    assert.match(mistyped.stderr, /a must be a number, got "x"/);
  });

  it('cancels the call on Ctrl-C and exits 130', async () => {
    const before = cancelled;
    const child = spawn(process.execPath, [CLI, 'call', url, 'wait', 'ms=30000'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    const deadline = Date.now() + 20_000;
    while (server.stats.inFlight === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok(server.stats.inFlight > 0, 'the call reached the server');
    child.kill('SIGINT');
    const code = await new Promise((resolve) => child.once('exit', resolve));
    assert.equal(code, 130);
    assert.match(stderr, /cancelled wait/);
    while (cancelled === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(cancelled, before + 1, "the server's handler saw the cancel");
  });
});

describe('weft list and inspect', () => {
  it('lists tools with the first line of their description, over HTTP and over stdio', async () => {
    const listed = await weft('list', url);
    assert.equal(listed.code, 0);
    assert.match(listed.stdout, /^add {4}Adds two integers\.$/m);
    assert.doesNotMatch(listed.stdout, /Second line/);
    assert.deepEqual(
      listed.stdout
        .trim()
        .split('\n')
        .map((line) => line.split(' ')[0]),
      ['add', 'fails', 'steps', 'wait'],
    );
    const stdio = await weft('list', SERVED);
    assert.deepEqual([stdio.code, stdio.stdout], [0, 'hello\n']);
    const called = await weft('call', SERVED, 'hello', 'name=cli');
    assert.equal(called.stdout, 'hello, cli\n');
  });

  it('prints capabilities, tools with their schemas and prompts', async () => {
    const { code, stdout } = await weft('inspect', url, '--protocol', 'legacy');
    assert.equal(code, 0);
    assert.match(stdout, /"name": "cli-target"/);
    assert.match(stdout, /protocol: 2025-11-25 \(legacy era\)/);
    assert.match(stdout, /tools \(4\):/);
    assert.match(stdout, /"a": \{\s+"type": "integer"/);
    assert.match(stdout, /prompts \(1\):\n {2}greet\(who\)/);
  });

  it('--help lists every command', async () => {
    const { code, stdout } = await weft('--help');
    assert.equal(code, 0);
    for (const command of ['serve', 'worker', 'dev', 'list', 'call', 'inspect']) {
      assert.match(stdout, new RegExp(`weft ${command}`));
    }
  });
});
