/**
 * Turns on Node's on-disk compile cache (`module.enableCompileCache`, Node 22.1 and later) for the
 * `weft` command, before any other module of it loads: a stdio server is spawned again at every
 * start of a desktop client, and with the cache its modules' code is read back compiled instead of
 * parsed and compiled anew. On a Node without it, this does nothing. Imported first by lib/cli.ts
 * for its side effect; NODE_COMPILE_CACHE, when set, is honoured by Node itself and wins.
 */
import * as nodeModule from 'node:module';

const { enableCompileCache } = nodeModule as { enableCompileCache?: () => unknown };
if (typeof enableCompileCache === 'function' && process.env.NODE_DISABLE_COMPILE_CACHE === undefined) {
  try {
    enableCompileCache();
  } catch {
    // A cache directory that cannot be written only costs the speed-up, never the start.
  }
}
