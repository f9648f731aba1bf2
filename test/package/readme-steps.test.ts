/**
 * The README's way in, from the packed tarball, in a scratch project under the system's temporary
 * directory: `npm install` the package, `typescript` and `@types/node`; examples/quickstart/ in
 * `src/`; the README's tsconfig; `npx tsc`; then `weft call` on the built server. Once with today's
 * TypeScript (7) and once with 5.9. Packages come from the npm registry through the npm cache; with
 * no registry in reach the test is skipped, unless WEFT_REQUIRE_NETWORK=1.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { root } from '../docs/markdown.js';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const scratch = mkdtempSync(join(tmpdir(), 'weft-readme-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs a command in `cwd`; fails the test with its output when it fails. */
function run(command: string, args: string[], cwd: string, timeoutMs: number): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: timeoutMs });
  assert.equal(
    result.status,
    0,
    `${command} ${args.join(' ')} in ${cwd} failed (${result.error?.message ?? `exit ${result.status}`}):\n${result.stdout}\n${result.stderr}`,
  );
  return result.stdout;
}

function registryReachable(): boolean {
  const probe = spawnSync(npm, ['view', 'typescript', 'version', '--prefer-offline'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return probe.status === 0;
}

const online = registryReachable();
const required = process.env.WEFT_REQUIRE_NETWORK === '1';
let tarball = '';

describe('the README steps, from the packed tarball', {
  skip:
    !online && !required && 'the npm registry is not reachable (set WEFT_REQUIRE_NETWORK=1 to fail instead)',
}, () => {
  before(() => {
    assert.ok(online, 'the npm registry is not reachable, and WEFT_REQUIRE_NETWORK=1');
    // The real pack: prepack builds lib/ and workers/ as they are published (no source maps).
    const packed = JSON.parse(
      execFileSync(npm, ['pack', '--json', '--pack-destination', scratch], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        timeout: 240_000,
      }),
    )[0] as { filename: string; files: { path: string }[] };
    tarball = join(scratch, packed.filename);
    const maps = packed.files.filter((file) => file.path.endsWith('.map'));
    assert.deepEqual(maps, [], 'no source maps are packed');
    run('tar', ['-xzf', tarball, '-C', scratch], scratch, 30_000);
    const pointing = spawnSync('grep', ['-rl', 'sourceMappingURL', join(scratch, 'package')], {
      encoding: 'utf8',
    });
    assert.equal(pointing.stdout, '', 'no packed file points at a source map the package lacks');
  });

  for (const typescript of ['typescript@7', 'typescript@5.9']) {
    it(`builds and serves examples/quickstart with ${typescript}`, () => {
      const project = join(scratch, typescript.replace(/\W/g, '-'));
      mkdirSync(join(project, 'src'), { recursive: true });
      writeFileSync(
        join(project, 'package.json'),
        JSON.stringify({ name: 'readme-steps', private: true, type: 'module' }),
      );
      // README: npm install weft-mcp; npm install -D typescript @types/node
      const installFlags = ['--no-audit', '--no-fund', '--prefer-offline'];
      const installed = spawnSync(npm, ['install', tarball, ...installFlags], {
        cwd: project,
        encoding: 'utf8',
        timeout: 180_000,
      });
      assert.equal(installed.status, 0, installed.stderr);
      assert.doesNotMatch(
        installed.stderr,
        /weft-mcp.*(?:install|prepare)/,
        'installing weft runs no script of its own',
      );
      run(npm, ['install', '-D', typescript, '@types/node', ...installFlags], project, 180_000);
      cpSync(join(root, 'examples/quickstart/server.ts'), join(project, 'src/server.ts'));
      cpSync(join(root, 'examples/quickstart/tools'), join(project, 'src/tools'), { recursive: true });
      // README: "module": "NodeNext", "rootDir": "src", "outDir": "dist", "types": ["node"]
      writeFileSync(
        join(project, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: { module: 'NodeNext', rootDir: 'src', outDir: 'dist', types: ['node'] },
        }),
      );
      run(join(project, 'node_modules/.bin/tsc'), [], project, 180_000);
      const version = JSON.parse(
        readFileSync(join(project, 'node_modules/typescript/package.json'), 'utf8'),
      ).version;
      assert.match(version, typescript.endsWith('@7') ? /^7\./ : /^5\.9\./);
      const answer = run(
        join(project, 'node_modules/.bin/weft'),
        ['call', './dist/server.js', 'fib', 'n=30'],
        project,
        60_000,
      );
      assert.match(answer, /"value":\s*832040/);
    });
  }
});
