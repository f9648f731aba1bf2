/**
 * The Piscina pool of the SDK + Piscina peer, and of the two floors measured beside it (the bare
 * Piscina floor and the stdio floor): sized by the peer options (`--threads`, else the machine's
 * cores), running piscina-tasks.ts. One constructor, so the floors price exactly the pool the peer
 * uses.
 */
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { OffloadedTask } from './piscina-tasks.js';

/** The task every floor runs: the peers' noop. */
export const NOOP_TASK: OffloadedTask = { tool: 'noop' };

export function peerPool(threads = availableParallelism()): Piscina {
  return new Piscina({
    filename: new URL('./piscina-tasks.js', import.meta.url).href,
    minThreads: threads,
    maxThreads: threads,
  });
}
