/**
 * The file Piscina loads in each pool thread. It is CommonJS on purpose: Piscina loads its task
 * file with require(), and a require() of an ES module (require(esm), Node 20.19+ and 22.12+) that
 * is terminated while it instantiates can abort the whole process (see lib/engine/thread-life.ts).
 * A require() of this file is a plain CommonJS load; the real entry, workers/pool-entry.js, and
 * through it every tool module, are loaded with import(), and the pool's life buffer counts the
 * load so that close() waits for it rather than terminating the thread in the middle of it.
 *
 * Piscina awaits the `default` of what it loaded when that is not a function, so the thread tells
 * Piscina it is ready only once the entry has loaded, as it did when Piscina loaded the entry itself.
 *
 * Nothing here may import an ES module statically: that would be a require(esm) again.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { workerData } from 'node:worker_threads';

type RunTask = (task: unknown) => Promise<unknown>;

/** Int32 fields of the pool's life buffer: the same layout as POOL in lib/engine/thread-life.ts. */
const ENTRIES_LOADING = 0;
const CLOSING = 1;

function loadEntry(): Promise<RunTask> {
  const life = new Int32Array((workerData as { threadLife: SharedArrayBuffer }).threadLife);
  Atomics.add(life, ENTRIES_LOADING, 1);
  if (Atomics.load(life, CLOSING) !== 0) {
    // The pool is closing: load nothing, and end this thread now. Its own exit, unlike a
    // termination from outside, cannot land in the middle of a load: nothing is loading.
    Atomics.sub(life, ENTRIES_LOADING, 1);
    process.exit(0);
  }
  const loaded = () => Atomics.sub(life, ENTRIES_LOADING, 1);
  return import(pathToFileURL(join(__dirname, 'pool-entry.js')).href).then(
    (entry: { default: RunTask }) => {
      loaded();
      return entry.default;
    },
    (error: unknown) => {
      loaded();
      throw error;
    },
  );
}

// The exports are a promise: Piscina's require() wraps them as `default`, which it awaits.
export = loadEntry();
