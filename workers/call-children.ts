/**
 * Ties every process a handler starts to its call, in a pool thread or a pool process.
 *
 * While a call runs, its mark (lib/engine/call-mark.ts) is in this worker's `process.env`, which
 * every child inherits unless given an environment of its own; `child_process` is hooked so that a
 * child given its own `env` is marked too (async children through `ChildProcess.prototype.spawn`,
 * which spawn, exec, execFile and fork all end in; the synchronous ones through their exports). A
 * thread's `process.env` is its own copy, so threads running side by side mark their children apart.
 *
 * When the call ends, here, before its result is sent (so its slot stays busy until they are gone),
 * whatever it started and left running is killed, detached children included. A call that spawned
 * nothing pays nothing: the /proc walk runs only when the hook counted a spawn. A call that is
 * abandoned instead is cleaned up by the server (the thread or process may be stuck or killed).
 */
import type { ChildProcess } from 'node:child_process';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { CALL_MARK_VARIABLE } from '../lib/engine/call-mark.js';
import { killProcesses } from '../lib/engine/process-tree.js';

const childProcess = createRequire(import.meta.url)(
  'node:child_process',
) as typeof import('node:child_process');

let currentMark: string | undefined;
let spawned = 0;

/** Marks what the handler of this call starts from now on. */
export function beginCallChildren(mark: string): void {
  currentMark = mark;
  spawned = 0;
  process.env[CALL_MARK_VARIABLE] = mark;
}

/** The call is over: kills every process it started that is still running, then unmarks. */
export function endCallChildren(): void {
  const mark = currentMark;
  currentMark = undefined;
  delete process.env[CALL_MARK_VARIABLE];
  if (mark !== undefined && spawned > 0) killProcesses({ mark });
}

const MARK_PAIR_PREFIX = `${CALL_MARK_VARIABLE}=`;

type SpawnOptions = { envPairs?: string[] } | undefined;
const prototype = childProcess.ChildProcess.prototype as ChildProcess & {
  spawn(options: SpawnOptions): unknown;
};
const spawnChild = prototype.spawn;
prototype.spawn = function spawnMarked(this: ChildProcess, options: SpawnOptions) {
  if (currentMark !== undefined) {
    spawned++;
    const pairs = options?.envPairs;
    if (Array.isArray(pairs) && !pairs.some((pair) => pair.startsWith(MARK_PAIR_PREFIX))) {
      pairs.push(`${MARK_PAIR_PREFIX}${currentMark}`);
    }
  }
  return spawnChild.call(this, options);
};

/** spawnSync(cmd, args?, options?), execFileSync(file, args?, options?), execSync(cmd, options?). */
for (const name of ['spawnSync', 'execSync', 'execFileSync'] as const) {
  const original = childProcess[name] as (...args: unknown[]) => unknown;
  (childProcess as Record<string, unknown>)[name] = function runMarked(this: unknown, ...args: unknown[]) {
    if (currentMark !== undefined) {
      spawned++;
      const at = Array.isArray(args[1]) ? 2 : 1;
      const options = args[at] as { env?: NodeJS.ProcessEnv } | undefined;
      if (options && typeof options === 'object' && options.env) {
        args[at] = { ...options, env: { ...options.env, [CALL_MARK_VARIABLE]: currentMark } };
      }
    }
    return original.apply(this, args);
  };
}
// `import { execSync } from 'node:child_process'` in a tool module sees the hooked functions too.
syncBuiltinESMExports();
