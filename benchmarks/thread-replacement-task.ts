/**
 * The task of benchmarks/thread-replacement-churn.ts: loads weft's index (so that each thread's
 * isolate allocates about what a pool thread's does), says which thread runs it, and spins until
 * it is terminated.
 */
import { threadId } from 'node:worker_threads';

await import('../lib/index.js');

export default function spin({ ids, lane }: { ids: SharedArrayBuffer; lane: number }): never {
  const view = new Int32Array(ids);
  Atomics.store(view, lane, threadId);
  // Spins on the shared lane until the termination comes; nothing ever changes it back.
  for (;;) if (Atomics.load(view, lane) === -1) throw new Error('unreachable');
}
