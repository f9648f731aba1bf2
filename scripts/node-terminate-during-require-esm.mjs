// Shows a fatal error in Node itself, with nothing but worker_threads: a worker terminated while
// require() is instantiating an ES module graph (require(esm), unflagged since Node 20.19 and 22.12)
// can end the whole process with
//   FATAL ERROR: v8::Module::IsGraphAsync must be used on an instantiated module
// or a failed CHECK on `facade->InstantiateModule(...)`, SIGABRT, exit code 134.
//
//   node scripts/node-terminate-during-require-esm.mjs [--mode require|import] [--seconds 60]
//
// It writes a graph of small ES modules to a temporary directory, measures how long a worker takes
// to load it, then for the given time starts workers that load it and terminates each one at a
// random moment of that load (timed from the worker's 'online' event), several at once.
// With --mode require the worker loads the graph with require(); with --mode import, with a
// dynamic import(): the same work through the asynchronous loader, for comparison. A run that
// survives prints how many workers were terminated and exits 0.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const mode = arg('mode', 'require');
const seconds = Number(arg('seconds', '60'));
const modules = 40;
const parallel = 8;

const dir = mkdtempSync(join(tmpdir(), 'terminate-require-esm-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
// A chain with fan-out, so instantiation takes a while: each module imports the next two.
for (let i = 0; i < modules; i++) {
  const deps = [i + 1, i + 2].filter((d) => d < modules);
  const body = [
    ...deps.map((d) => `import { v as v${d} } from './m${d}.mjs';`),
    `export const v = ${i} + ${deps.map((d) => `v${d}`).join(' + ') || 0} * 0;`,
    `export function f${i}(x) { return x + v; }`,
    // A default export, as a task file has: require() then wraps the namespace in a facade module.
    i === 0 ? 'export default function task(x) { return x; }' : '',
  ].join('\n');
  writeFileSync(join(dir, `m${i}.mjs`), body);
}
const root = arg('root', join(dir, 'm0.mjs'));
const load =
  mode === 'import'
    ? `import(${JSON.stringify(pathToFileURL(root).href)})`
    : `require(${JSON.stringify(root)})`;
// The worker says when its load ended, and how long it took, for the calibration run.
const source = `const { parentPort } = require('node:worker_threads');
const started = performance.now();
Promise.resolve(${load}).then(() => parentPort.postMessage(performance.now() - started));`;

/** How long one worker takes to load the graph, once it is online. */
function calibrate() {
  const worker = new Worker(source, { eval: true });
  return new Promise((resolve) => worker.once('message', (ms) => worker.terminate().then(() => resolve(ms))));
}
const loadMs = Math.max(...(await Promise.all([calibrate(), calibrate()])));

console.log(
  `node ${process.version}, mode ${mode}, ${seconds} s, ${parallel} workers at a time, load takes ${loadMs.toFixed(1)} ms`,
);
const until = Date.now() + seconds * 1000;
let terminated = 0;

function cycle() {
  if (Date.now() > until) return Promise.resolve();
  const worker = new Worker(source, { eval: true });
  worker.on('error', () => {});
  return new Promise((resolve) => {
    worker.once('online', () => {
      setTimeout(
        () => {
          worker.terminate().then(() => {
            terminated++;
            resolve(cycle());
          });
        },
        loadMs * (0.5 + Math.random() * 0.7),
      );
    });
  });
}

await Promise.all(Array.from({ length: parallel }, cycle));
console.log(`survived: ${terminated} workers terminated while loading, no abort`);
