/**
 * The MCP Inspector's own SEP-2640 check (`--method skills/list --verify`, Inspector 2.12.0) run
 * against weft serving examples/skills/ over Streamable HTTP, in both eras: every skill must come
 * back `verified` (frontmatter, manifest, each file's sha256 digest and size) and the run must exit 0.
 * A file changed on disk after start must make the same run fail (weft refuses the stale read).
 *
 * The Inspector needs Node 22 while weft supports Node 20, so, as scripts/conformance.mjs does,
 * `node@22` and the Inspector are installed from npm into the git-ignored .cache/ folder, never as
 * dependencies. Without network access the install fails and the test says it skipped; with
 * WEFT_REQUIRE_INSPECTOR=1 that is a failure instead.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { McpServer } from '../../lib/index.js';

const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0';
const root = fileURLToPath(new URL('../../../', import.meta.url));
const cache = join(root, '.cache');
const node22 = join(cache, 'node22', 'node_modules', 'node', 'bin', 'node');
const inspectorPrefix = join(cache, 'inspector-2.12.0');
const inspectorCli = join(
  inspectorPrefix,
  'node_modules',
  '@modelcontextprotocol',
  'inspector',
  'clients',
  'cli',
  'build',
  'index.js',
);
const skillsFolder = join(root, 'examples', 'skills');
const required = process.env.WEFT_REQUIRE_INSPECTOR === '1';
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function install(prefix: string, pkg: string, marker: string): boolean {
  if (existsSync(marker)) return true;
  const args = ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', pkg];
  spawnSync(npm, args, { stdio: 'ignore', timeout: 5 * 60_000 });
  return existsSync(marker);
}

const installed =
  install(join(cache, 'node22'), 'node@22', node22) && install(inspectorPrefix, INSPECTOR, inspectorCli);
const skip = installed
  ? false
  : `could not install node@22 and ${INSPECTOR} into .cache/ (no network access to the npm registry?)`;
if (skip && required) throw new Error(`WEFT_REQUIRE_INSPECTOR=1 but ${skip}`);

const temps: string[] = [];
const servers: McpServer[] = [];
after(async () => {
  await Promise.all(servers.map((server) => server.close()));
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

async function serve(folder: string): Promise<string> {
  const server = new McpServer({ name: 'skills-example', version: '1.0.0' }).skills(folder);
  servers.push(server);
  await server.listen({ http: { port: 0, host: '127.0.0.1' }, handleSignals: false });
  return `http://127.0.0.1:${server.addresses.http!.port}/mcp`;
}

interface Verdict {
  code: number | null;
  reports: { name: string; ok: boolean; outcome: string; files: { status: string }[] }[];
  stderr: string;
}

/** One `--method skills/list --verify` run; the Inspector writes one JSON report per skill. */
function verify(url: string, era: 'legacy' | 'modern'): Promise<Verdict> {
  const home = mkdtempSync(join(tmpdir(), 'weft-inspector-home-'));
  temps.push(home);
  const args = [inspectorCli, '--cli', url, '--transport', 'http', '--protocol-era', era];
  const child = spawn(node22, [...args, '--method', 'skills/list', '--verify'], {
    env: { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, 'mcp.json') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) =>
    child.on('close', (code) => {
      const reports = stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line));
      resolve({ code, reports, stderr });
    }),
  );
}

describe('MCP Inspector skills/list --verify', { skip, timeout: 120_000 }, () => {
  for (const era of ['legacy', 'modern'] as const) {
    it(`verifies every skill of examples/skills, ${era} era`, async () => {
      const { code, reports, stderr } = await verify(await serve(skillsFolder), era);
      assert.equal(code, 0, stderr);
      assert.deepEqual(reports.map((report) => [report.name, report.outcome]).sort(), [
        ['code-review', 'verified'],
        ['pdf-forms', 'verified'],
      ]);
      const files = reports.flatMap((report) => report.files.map((file) => file.status));
      assert.deepEqual(files, ['verified', 'verified', 'verified']);
    });
  }

  it('fails the run when a file changed on disk after start', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'weft-skills-copy-'));
    temps.push(copy);
    cpSync(skillsFolder, copy, { recursive: true });
    const url = await serve(copy);
    writeFileSync(join(copy, 'pdf-forms', 'references', 'GUIDE.md'), '# Guide\n\nChanged.\n');
    const { code, reports } = await verify(url, 'modern');
    assert.equal(code, 7, 'SKILL_NONCONFORMANT');
    const pdf = reports.find((report) => report.name === 'pdf-forms');
    assert.equal(pdf?.ok, false);
    assert.equal(reports.find((report) => report.name === 'code-review')?.ok, true);
  });
});
