/**
 * Preloaded (`node -r`) into the server of doors-after-threads.test.ts (and the fleet worker of
 * worker-doors-after-threads.test.ts): in every worker thread it holds the thread 300 ms (or
 * WEFT_TEST_THREAD_HOLD_MS) before its entry loads, as a heavy entry on a busy machine would, then
 * appends a line to the file `threadLogOf` names (by the process id: a pool thread's environment
 * is the tool's, not the server's). The main thread is left alone.
 */
import { appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';

export const threadLogOf = (pid: number) => join(tmpdir(), `weft-doors-after-threads-${pid}.log`);

if (!isMainThread) {
  const holdMs = Number(process.env.WEFT_TEST_THREAD_HOLD_MS ?? 300);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, holdMs);
  appendFileSync(threadLogOf(process.pid), 'loaded\n');
}
