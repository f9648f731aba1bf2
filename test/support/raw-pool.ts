/**
 * A one-thread Piscina pool running weft's own pool entry, with the pool's cancel flags, and tasks
 * for the fixture tools (support/fixture-tools.ts): for tests that hold engine parts to what Piscina
 * and the pool entry need, below the pool executor.
 */
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { CancelFlags } from '../../lib/engine/cancel-flags.js';
import { PoolLife } from '../../lib/engine/thread-life.js';
import type { PoolTask, PoolWorkerData } from '../../lib/engine/worker-protocol.js';

const POOL_ENTRY = fileURLToPath(new URL('../../workers/pool-thread-entry.cjs', import.meta.url));
const FIXTURES = new URL('./fixture-tools.js', import.meta.url).href;

export interface RawPool {
  readonly pool: Piscina;
  readonly flags: CancelFlags;
  /** A task for the fixture tool `name`, its cancel flag at `flagSlot`. */
  task(name: string, args: unknown, flagSlot: number): PoolTask;
}

export function rawPool(): RawPool {
  const flags = new CancelFlags(1);
  const workerData: PoolWorkerData = { cancelFlags: flags.buffer, threadLife: new PoolLife().buffer };
  const pool = new Piscina({ filename: POOL_ENTRY, minThreads: 1, maxThreads: 1, workerData });
  let nextCallId = 1;
  return {
    pool,
    flags,
    task: (name, args, flagSlot) => ({
      callId: nextCallId++,
      toolName: name,
      moduleUrl: FIXTURES,
      exportName: name,
      args,
      flagSlot,
      deadline: undefined,
      wantsProgress: false,
      minLogLevel: 8,
    }),
  };
}
