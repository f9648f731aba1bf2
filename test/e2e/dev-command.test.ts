/**
 * `weft dev`: a TypeScript server in a project of its own, served on a fixed port, restarted on
 * the same port when one of its files changes, with what changed and the type errors printed and
 * a file that does not compile leaving the running version up, and Ctrl-C stopping the server once.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '../support/free-port.js';

const CLI = fileURLToPath(new URL('../../lib/cli.js', import.meta.url));
const WEFT = fileURLToPath(new URL('../../lib/index.js', import.meta.url));
const NODE_MODULES = fileURLToPath(new URL('../../../node_modules', import.meta.url));

const serverSource = (answer: string, extra = '') => `
import { McpServer } from '${WEFT}';
import { greeting } from './greeting.js';
${extra}
export default new McpServer({ name: 'dev-test', version: '1', pool: { maxThreads: 1 } }).tool({
  name: 'answer',
  inputSchema: { type: 'object' },
  handler: () => greeting('${answer}'),
});
`;

/** One stateless (2026-07-28) tools/call over HTTP: no session to lose across restarts. */
async function callAnswer(port: number): Promise<string | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'answer',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'answer',
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    const body = (await response.json()) as { result?: { content?: { text?: string }[] } };
    return body.result?.content?.[0]?.text;
  } catch {
    return undefined; // not listening (yet, or between two versions)
  }
}

async function eventually<T>(
  what: string,
  probe: () => Promise<T> | T,
  ok: (value: T) => boolean,
): Promise<T> {
  const deadline = Date.now() + 30_000;
  let last: T;
  do {
    last = await probe();
    if (ok(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  } while (Date.now() < deadline);
  throw new Error(`timed out waiting for ${what}; last: ${String(last)}`);
}

describe('weft dev', () => {
  let project: string;
  let port: number;
  let dev: ChildProcess;
  let output = '';
  before(async () => {
    project = mkdtempSync(join(tmpdir(), 'weft-dev-'));
    mkdirSync(join(project, 'src'));
    // typescript and esbuild from this repository's node_modules, as a project would have them.
    symlinkSync(NODE_MODULES, join(project, 'node_modules'));
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'dev-test', type: 'module' }));
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          target: 'ES2022',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
        },
        include: ['src'],
      }),
    );
    writeFileSync(
      join(project, 'src/greeting.ts'),
      'export const greeting = (text: string): string => text + "!";\n',
    );
    writeFileSync(join(project, 'src/server.ts'), serverSource('v1'));
    port = await freePort();
    dev = spawn(process.execPath, [CLI, 'dev', 'src/server.ts', '--http', String(port)], {
      cwd: project,
      stdio: ['ignore', 'pipe', 'pipe'],
      // A process group of its own, as a shell gives a foreground job: Ctrl-C signals the group.
      detached: true,
    });
    dev.stdout?.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    dev.stderr?.on('data', (chunk: Buffer) => {
      output += chunk;
    });
  });
  after(async () => {
    if (dev.exitCode === null) {
      const exited = new Promise((resolve) => dev.once('exit', resolve));
      dev.kill('SIGTERM');
      await exited;
    }
    rmSync(project, { recursive: true, force: true });
  });

  it('serves the TypeScript server, then restarts it on the same port when a file changes', async () => {
    assert.equal(
      await eventually(
        'v1',
        () => callAnswer(port),
        (text) => text === 'v1!',
      ),
      'v1!',
    );
    await eventually(
      'the first type check',
      () => output,
      (text) => /no type errors \(TypeScript \d/.test(text),
    );
    // A change to an imported file, with a type error in it: restarted, and the error printed.
    writeFileSync(
      join(project, 'src/greeting.ts'),
      'export const greeting = (text: string): string => text + "?";\nexport const wrong: number = "text";\n',
    );
    assert.equal(
      await eventually(
        'the change',
        () => callAnswer(port),
        (text) => text === 'v1?',
      ),
      'v1?',
    );
    assert.match(output, /src\/greeting\.ts changed; restarting/);
    await eventually(
      'the type error',
      () => output,
      (text) => /TS2322/.test(text),
    );
    assert.match(output, /type errors \(TypeScript \d[\d.]*; the server runs anyway\)/);
    assert.equal(dev.exitCode, null, 'weft dev keeps running');
  });

  it('keeps the running version up while a file does not compile, and restarts once it does', async () => {
    writeFileSync(join(project, 'src/server.ts'), `${serverSource('v2')}\nconst broken = ;\n`);
    await eventually(
      'the syntax error',
      () => output,
      (text) => text.includes('does not compile'),
    );
    assert.match(output, /not restarted: fix the error above/);
    assert.equal(await callAnswer(port), 'v1?', 'the previous version still serves');
    writeFileSync(join(project, 'src/server.ts'), serverSource('v3'));
    assert.equal(
      await eventually(
        'v3',
        () => callAnswer(port),
        (text) => text === 'v3?',
      ),
      'v3?',
    );
  });
  it('restarts after an atomic save (a temporary file renamed over the source), and keeps seeing the file', async () => {
    // What editors and `sed -i` do; node's recursive fs.watch on Linux lost the file after the first.
    const saveAtomically = (version: string) => {
      const temporary = join(project, 'src', `.server.ts.${version}.tmp`);
      writeFileSync(temporary, serverSource(version));
      renameSync(temporary, join(project, 'src/server.ts'));
    };
    for (const version of ['v4', 'v5']) {
      saveAtomically(version);
      assert.equal(
        await eventually(
          `${version}, saved by rename`,
          () => callAnswer(port),
          (text) => text === `${version}?`,
        ),
        `${version}?`,
      );
    }
    writeFileSync(join(project, 'src/server.ts'), serverSource('v6'));
    assert.equal(
      await eventually(
        'v6, written in place after the renames',
        () => callAnswer(port),
        (text) => text === 'v6?',
      ),
      'v6?',
    );
  });

  it('stops the server once on Ctrl-C (SIGINT to the whole process group): drained, not "again"', async () => {
    const serverPid = Number([...output.matchAll(/server started \(pid (\d+)\)/g)].at(-1)![1]);
    const exited = new Promise<number | null>((resolve) => dev.once('exit', (code) => resolve(code)));
    process.kill(-dev.pid!, 'SIGINT');
    assert.equal(await exited, 0);
    assert.doesNotMatch(output, /again, exiting now/);
    assert.throws(() => process.kill(serverPid, 0), { code: 'ESRCH' }, 'the server has exited');
    assert.equal(await callAnswer(port), undefined, 'nothing serves on the port any more');
  });
});
