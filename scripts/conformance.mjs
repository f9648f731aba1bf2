#!/usr/bin/env node
/**
 * `npm run conformance`: runs the official MCP conformance suite (every scenario, `--suite all`)
 * against weft's conformance server, and fails on any failed check.
 *
 * The suite needs Node 22 while weft supports Node 20, so Node 22 (the npm package `node@22`) and the
 * suite are installed into a git-ignored cache folder, never as dependencies of weft itself: a
 * `node@22` devDependency would shadow the Node that runs weft's own npm scripts.
 *
 * Options: --scenario NAME (one scenario instead of the whole suite), --verbose.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const SUITE_VERSION = '0.1.16';
const NODE_PACKAGE = 'node@22';
const RUN_LIMIT_MS = 5 * 60_000;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cache = join(root, '.cache', 'conformance');
const suitePackage = join(cache, 'node_modules', '@modelcontextprotocol', 'conformance');
const node22 = join(cache, 'node_modules', 'node', 'bin', 'node');
const serverEntry = join(root, 'dist', 'examples', 'conformance-server.js');

const { values } = parseArgs({
  options: { scenario: { type: 'string' }, verbose: { type: 'boolean', default: false } },
});

function installedSuiteVersion() {
  try {
    return JSON.parse(readFileSync(join(suitePackage, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

function ensureInstalled() {
  if (installedSuiteVersion() === SUITE_VERSION && existsSync(node22)) return;
  console.log(
    `conformance: installing ${NODE_PACKAGE} and the suite ${SUITE_VERSION} into .cache/conformance ...`,
  );
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(
    npm,
    [
      'install',
      '--prefix',
      cache,
      '--no-audit',
      '--no-fund',
      '--no-save',
      NODE_PACKAGE,
      `@modelcontextprotocol/conformance@${SUITE_VERSION}`,
    ],
    { stdio: 'inherit' },
  );
  if (result.status !== 0 || !existsSync(node22)) {
    console.error('conformance: the install failed; check your network access to the npm registry');
    process.exit(1);
  }
}

function ensureBuilt() {
  if (existsSync(serverEntry)) return;
  console.log('conformance: building weft (dist/ is missing) ...');
  const result = spawnSync(
    process.execPath,
    [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', root],
    {
      stdio: 'inherit',
    },
  );
  if (!existsSync(serverEntry)) {
    console.error(`conformance: the build did not produce ${serverEntry} (tsc exit ${result.status})`);
    process.exit(1);
  }
}

function freePort() {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolvePort(port));
    });
  });
}

/** Starts the conformance server and resolves once it says it is listening. */
function startServer(port) {
  const child = spawn(process.execPath, [serverEntry], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  return new Promise((resolveStart, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`the server did not start in 15 s:\n${output}`)), 15_000);
    child.stderr.on('data', (chunk) => {
      output += chunk;
      if (values.verbose) process.stderr.write(chunk);
      if (output.includes('weft conformance server:')) {
        clearTimeout(timer);
        resolveStart(child);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with code ${code} before listening:\n${output}`));
    });
  });
}

function runSuite(port) {
  const args = [join(suitePackage, 'dist', 'index.js'), 'server', '--url', `http://127.0.0.1:${port}/mcp`];
  args.push(...(values.scenario ? ['--scenario', values.scenario] : ['--suite', 'all']));
  if (values.verbose) args.push('--verbose');
  const child = spawn(node22, args, {
    cwd: cache,
    env: { ...process.env, PATH: `${dirname(node22)}:${process.env.PATH ?? ''}` },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
    process.stdout.write(chunk);
  });
  const limit = setTimeout(() => child.kill('SIGTERM'), RUN_LIMIT_MS);
  return new Promise((resolveRun) => {
    child.once('exit', (code, signal) => {
      clearTimeout(limit);
      resolveRun({ code: code ?? (signal ? 1 : 0), output });
    });
  });
}

ensureInstalled();
ensureBuilt();
const port = await freePort();
let server;
try {
  server = await startServer(port);
} catch (error) {
  console.error(`conformance: ${error.message}`);
  process.exit(1);
}
const { code, output } = await runSuite(port);
server.kill('SIGTERM');
const total = /Total: (\d+) passed, (\d+) failed(?:, (\d+) warnings)?/.exec(output);
if (!total) {
  console.error(`conformance: no summary line from the suite (exit code ${code})`);
  process.exit(1);
}
const [, passed, failed, warnings = '0'] = total;
console.log(
  `\nconformance: ${passed} passed, ${failed} failed, ${warnings} warnings (suite ${SUITE_VERSION})`,
);
process.exit(code !== 0 || Number(failed) > 0 ? 1 : 0);
