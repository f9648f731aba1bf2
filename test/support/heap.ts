/**
 * The heap in use after a full collection, for tests that bound what a flood leaves behind. Node
 * runs tests without --expose-gc, so the flag is set at run time and `gc` fetched from a fresh
 * context (the documented way to reach it without the command-line flag).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/** Heap used (bytes) after collecting twice, with a turn between so finalizers run. */
export async function heapUsedAfterGc(): Promise<number> {
  collect();
  await new Promise((resolve) => setImmediate(resolve));
  collect();
  return process.memoryUsage().heapUsed;
}

export const MB = 1024 * 1024;
