#!/usr/bin/env node
/**
 * The floor for blocking-throughput: a bare Piscina pool running a noop task, driven in process
 * with no MCP, no JSON-RPC and no stdio around the tasks. However fast a server hands trivial calls
 * to a pool of the same size, it cannot beat this process, so the report prints its rate beside
 * weft's and the SDK + Piscina peer's as the limit on this machine, in this run.
 *
 * It is told what to measure on stdin, one line per window (`<concurrency> <ms>`), and answers each
 * with one JSON line `{"tasks":..., "seconds":...}`: a control channel only, never touched by the
 * tasks being counted. It runs in its own process so the tasks do not share the benchmark runner's
 * event loop, as the servers' calls do not.
 */
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { readPeerOptions } from '../peers/peer-options.js';
import { NOOP_TASK, peerPool } from '../peers/peer-pool.js';

const pool = peerPool(readPeerOptions().threads);

/** Keeps `concurrency` noop tasks in flight for `ms` and counts those that finished. */
async function closedLoop(concurrency: number, ms: number): Promise<{ tasks: number; seconds: number }> {
  const start = performance.now();
  const stopAt = start + ms;
  let tasks = 0;
  let last = start;
  const runner = async () => {
    while (performance.now() < stopAt) {
      await pool.run(NOOP_TASK);
      tasks++;
      last = performance.now();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, runner));
  return { tasks, seconds: (last - start) / 1000 };
}

const lines = createInterface({ input: process.stdin });
// One window at a time, in the order asked: the runner waits for each answer before the next.
let queue = Promise.resolve();
lines.on('line', (line) => {
  const [concurrency, ms] = line.trim().split(/\s+/).map(Number);
  if (!concurrency || !ms) return;
  queue = queue.then(async () => {
    process.stdout.write(`${JSON.stringify(await closedLoop(concurrency, ms))}\n`);
  });
});
lines.on('close', () => {
  void queue.then(() => pool.destroy()).then(() => process.exit(0));
});
// Tell the runner the threads are up (minThreads starts them) and it may ask.
await closedLoop(1, 1);
process.stdout.write('ready\n');
