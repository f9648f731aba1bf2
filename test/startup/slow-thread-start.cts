/**
 * Preloaded (`node -r`) into the server of doors-after-threads.test.ts: in every worker thread it
 * holds the thread 300 ms before its entry loads, as a heavy entry on a busy machine would, then
 * appends a line to the file `threadLogOf` names (by the process id: a pool thread's environment
 * is the tool's, not the server's). The main thread is left alone.
 */
import { appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';

export const threadLogOf = (pid: number) => join(tmpdir(), `weft-doors-after-threads-${pid}.log`);

if (!isMainThread) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
  appendFileSync(threadLogOf(process.pid), 'loaded\n');
}
