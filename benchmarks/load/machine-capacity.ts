/**
 * How much parallel CPU this machine delivers right now, measured without any MCP server: the same
 * hash_chain work in 1 worker thread, then in one per core, and on this process's main thread. On a
 * shared or throttled machine two cores may deliver far less than twice one core; no server can beat
 * that ceiling, so the report prints it next to the CPU-throughput ratios.
 *
 * The main thread is measured too because the inline servers run their tools there, and on the
 * benchmark VM a lone worker thread has run hash_chain up to a fifth slower than a lone main thread
 * (the scheduler tends to wake it on the other vCPU, which the host may be sharing). A pool's best
 * ratio against an inline server is all threads against the main thread.
 */
import { Worker } from 'node:worker_threads';
import { hashChain } from '../peers/cpu-work.js';

export interface MachineCapacity {
  oneThreadCallsPerSecond: number;
  allThreadsCallsPerSecond: number;
  /** The same loop on this process's main thread, as an inline server runs its tools. */
  mainThreadCallsPerSecond: number;
  threads: number;
  /** allThreads / oneThread: the best speed-up any pool can show over one of its own threads. */
  speedup: number;
  /** allThreads / mainThread: the best ratio any pool can show over an inline server. */
  speedupOverMainThread: number;
}

const workURL = new URL('../peers/cpu-work.js', import.meta.url).href;

/**
 * Calls per second of one thread running hash_chain for about `durationMs`. The rate is taken over
 * the time the whole calls took, not the nominal window: with calls of tens of ms, counting calls in
 * a fixed window rounded every rate to a multiple of 1.67 calls/s.
 */
function callRate(durationMs: number, rounds: number): Promise<number> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    import(workerData.url).then(({ hashChain }) => {
      const start = performance.now();
      const end = start + workerData.durationMs;
      let calls = 0;
      while (performance.now() < end) { hashChain('weft', workerData.rounds); calls++; }
      parentPort.postMessage(calls / ((performance.now() - start) / 1000));
    });`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData: { url: workURL, durationMs, rounds } });
    worker.once('message', (rate: number) => {
      resolve(rate);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

/**
 * Alternates a 1-thread, an all-threads and a main-thread measurement `repeats` times and keeps the
 * median of each, so one noisy second on a shared machine does not set the ceiling.
 */
export async function measureCapacity(
  threads: number,
  durationMs: number,
  rounds: number,
  repeats = 3,
): Promise<MachineCapacity> {
  const one: number[] = [];
  const all: number[] = [];
  const main: number[] = [];
  for (let repeat = 0; repeat < repeats; repeat++) {
    one.push(await callRate(durationMs, rounds));
    const rates = await Promise.all(Array.from({ length: threads }, () => callRate(durationMs, rounds)));
    all.push(rates.reduce((sum, rate) => sum + rate, 0));
    main.push(mainThreadRate(durationMs, rounds));
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const oneThreadCallsPerSecond = median(one);
  const allThreadsCallsPerSecond = median(all);
  const mainThreadCallsPerSecond = median(main);
  return {
    oneThreadCallsPerSecond,
    allThreadsCallsPerSecond,
    mainThreadCallsPerSecond,
    threads,
    speedup: allThreadsCallsPerSecond / oneThreadCallsPerSecond,
    speedupOverMainThread: allThreadsCallsPerSecond / mainThreadCallsPerSecond,
  };
}

/** Like callRate, on the calling thread (it blocks the event loop for `durationMs`; nothing else runs). */
function mainThreadRate(durationMs: number, rounds: number): number {
  const start = performance.now();
  const end = start + durationMs;
  let calls = 0;
  while (performance.now() < end) {
    hashChain('weft', rounds);
    calls++;
  }
  return calls / ((performance.now() - start) / 1000);
}
