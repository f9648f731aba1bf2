/**
 * What `weft` prints when it cannot do what it was asked, and the exit code, as a user meets them:
 * the real command in a child process. Usage only for a command line that does not parse; every
 * other failure one or two lines that say what failed and what to do, printed once; a ready line,
 * with the URL, for every transport. Exit codes as docs/everyday.md lists them.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '../support/free-port.js';

const CLI = fileURLToPath(new URL('../../lib/cli.js', import.meta.url));
const SERVED = fileURLToPath(new URL('../support/cli-served-server.js', import.meta.url));
const INLINE = fileURLToPath(new URL('../tools/fixtures/inline-blocking-server.js', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'weft-cli-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const weft = (...args: string[]) =>
  spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 30_000 });

/** Starts `weft serve` and resolves once it has printed `lines` ready lines on stderr. */
async function serving(args: string[], lines: number): Promise<{ child: ChildProcess; ready: string[] }> {
  const child = spawn(process.execPath, [CLI, 'serve', ...args], { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  const ready = await new Promise<string[]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in 20 s; stderr: ${stderr}`)), 20_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk;
      const found = stderr.split('\n').filter((line) => line.includes(' ready '));
      if (found.length >= lines) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  return { child, ready };
}

const USAGE = /^usage: weft serve/m;

describe('weft serve says where it is ready', () => {
  it('prints one ready line per transport, with the URL a client connects to', async () => {
    const [http, ws] = [await freePort(), await freePort()];
    const { child, ready } = await serving([SERVED, '--http', String(http), '--ws', String(ws)], 2);
    child.kill('SIGTERM');
    const module = SERVED;
    assert.deepEqual(ready, [
      `weft: ${module} ready at http://127.0.0.1:${http}/mcp (Streamable HTTP)`,
      `weft: ${module} ready at ws://127.0.0.1:${ws}/ (WebSocket)`,
    ]);
  });

  it('says so on stderr over stdio, keeping stdout for JSON-RPC', async () => {
    const { child, ready } = await serving([SERVED, '--stdio'], 1);
    child.kill('SIGTERM');
    assert.deepEqual(ready, [`weft: ${SERVED} ready on stdio`]);
  });

  it('exits 1 when the port is taken, in two lines that say what to do, without the usage', async () => {
    const port = await freePort();
    const { child } = await serving([SERVED, '--http', String(port)], 1);
    try {
      const run = weft('serve', SERVED, '--http', String(port));
      assert.equal(run.status, 1);
      assert.equal(
        run.stderr,
        `weft: 127.0.0.1:${port} is already in use.\n` +
          'Stop the process that holds it, or choose another port (--http PORT, --ws PORT; 0 picks a free one).\n',
      );
    } finally {
      child.kill('SIGTERM');
    }
  });
});

describe('weft serve explains a module it cannot serve', () => {
  it('exits 2 on a path that is not there, saying where it looked', () => {
    const run = weft('serve', 'dist/no-such-server.js', '--stdio');
    assert.equal(run.status, 2);
    assert.match(
      run.stderr,
      /^weft: cannot find dist\/no-such-server\.js \(looked for .*\) \(was it built\? run tsc first\)\n$/,
    );
  });

  it('points a TypeScript module at tsc or weft dev', (t) => {
    const file = join(scratch, 'server.ts');
    writeFileSync(file, 'export default 1;\n');
    const run = weft('serve', file, '--stdio');
    if ((process.features as { typescript?: unknown }).typescript) {
      t.diagnostic('this Node strips types: the module loads, and is refused for its export');
      assert.equal(run.status, 1);
      assert.match(run.stderr, /must default-export an McpServer/);
      return;
    }
    assert.equal(run.status, 2);
    assert.equal(
      run.stderr,
      `weft: ${file} is TypeScript, which this Node cannot run as is.\n` +
        `Run tsc first and serve the compiled file (weft serve dist/...js), or run: weft dev ${file}\n`,
    );
  });

  it('names the package a module imports that is not installed, and how to install it', () => {
    const file = join(scratch, 'needs-package.mjs');
    writeFileSync(file, "import 'weft-no-such-package/sub';\nexport default 1;\n");
    const run = weft('serve', file, '--stdio');
    assert.equal(run.status, 1);
    assert.match(run.stderr, /^weft: .* could not be loaded: Cannot find package 'weft-no-such-package'/);
    assert.match(run.stderr, /\nInstall it \(npm install weft-no-such-package\), or fix the import\.\n$/);
    assert.doesNotMatch(run.stderr, USAGE);
  });

  it('prints a registration mistake once, and exits 1', () => {
    const run = weft('serve', INLINE, '--stdio');
    assert.equal(run.status, 1);
    assert.equal(run.stderr.split('Tool "fib"').length - 1, 1, run.stderr);
    assert.match(
      run.stderr,
      /^weft: Tool "fib": a blocking tool cannot be defined in the module that builds the server/,
    );
    assert.match(run.stderr, /Move the tool into a module of its own/);
    assert.doesNotMatch(run.stderr, USAGE);
  });

  it('exits 1 when the default export is not a server', () => {
    const file = join(scratch, 'not-a-server.mjs');
    writeFileSync(file, 'export default { hello: 1 };\n');
    const run = weft('serve', file, '--stdio');
    assert.deepEqual(
      [run.status, run.stderr],
      [
        1,
        `weft: ${file} must default-export an McpServer, or a function that returns one (export default server)\n`,
      ],
    );
  });
});

describe('usage, only for a command line that does not parse', () => {
  for (const args of [
    ['serve', SERVED, '--no-such-flag'],
    ['serve', SERVED, '--http', 'eighty'],
    ['frobnicate'],
    [],
  ]) {
    it(`weft ${args.join(' ') || '(nothing)'}: the mistake, the usage, exit 2`, () => {
      const run = weft(...args);
      assert.equal(run.status, 2);
      assert.match(run.stderr, /^weft: .+\nusage: weft serve/);
    });
  }
});

describe('weft call and list explain what failed', () => {
  it('exits 1 when nothing answers at the URL, saying so', async () => {
    const port = await freePort();
    const run = weft('list', `http://127.0.0.1:${port}/mcp`);
    assert.equal(run.status, 1);
    assert.equal(
      run.stderr,
      `weft: nothing answers at http://127.0.0.1:${port}/mcp (connection refused): is the server running there?\n`,
    );
  });

  it('exits 2 on a module target that is not there, or is TypeScript', () => {
    const missing = weft('list', './no-such-server.js');
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /^weft: cannot find \.\/no-such-server\.js/);
    const typescript = weft('call', 'src/server.ts', 'fib');
    assert.equal(typescript.status, 2);
    assert.match(
      typescript.stderr,
      /src\/server\.ts is TypeScript: run tsc first .* or serve it with weft dev/,
    );
  });

  it('exits 2 on an unknown tool and a mistyped argument, without the usage', () => {
    const unknown = weft('call', SERVED, 'nosuch');
    assert.deepEqual(
      [unknown.status, unknown.stderr],
      [2, 'weft: the server has no tool "nosuch" (weft list shows its tools)\n'],
    );
  });
});
