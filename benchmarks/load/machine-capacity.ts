/**
 * How much parallel CPU this machine delivers right now, measured without any MCP server: the same
 * hash_chain work in 1 worker thread, then in one per core. On a shared or throttled machine two
 * cores may deliver far less than twice one core; no server can beat that ceiling, so the report
 * prints it next to the CPU-throughput ratios.
 */
import { Worker } from 'node:worker_threads';

export interface MachineCapacity {
  oneThreadCallsPerSecond: number;
  allThreadsCallsPerSecond: number;
  threads: number;
  /** allThreads / oneThread: the best speed-up any pool can show on this machine now. */
  speedup: number;
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
 * Alternates a 1-thread and an all-threads measurement `pairs` times and keeps the median of each,
 * so one noisy second on a shared machine does not set the ceiling.
 */
export async function measureCapacity(
  threads: number,
  durationMs: number,
  rounds: number,
  pairs = 3,
): Promise<MachineCapacity> {
  const one: number[] = [];
  const all: number[] = [];
  for (let pair = 0; pair < pairs; pair++) {
    one.push(await callRate(durationMs, rounds));
    const rates = await Promise.all(Array.from({ length: threads }, () => callRate(durationMs, rounds)));
    all.push(rates.reduce((sum, rate) => sum + rate, 0));
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const oneThreadCallsPerSecond = median(one);
  const allThreadsCallsPerSecond = median(all);
  return {
    oneThreadCallsPerSecond,
    allThreadsCallsPerSecond,
    threads,
    speedup: allThreadsCallsPerSecond / oneThreadCallsPerSecond,
  };
}
