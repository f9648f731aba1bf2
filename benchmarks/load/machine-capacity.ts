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

function countCalls(durationMs: number, rounds: number): Promise<number> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    import(workerData.url).then(({ hashChain }) => {
      const end = performance.now() + workerData.durationMs;
      let calls = 0;
      while (performance.now() < end) { hashChain('weft', workerData.rounds); calls++; }
      parentPort.postMessage(calls);
    });`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData: { url: workURL, durationMs, rounds } });
    worker.once('message', (calls: number) => {
      resolve(calls);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

export async function measureCapacity(
  threads: number,
  durationMs: number,
  rounds: number,
): Promise<MachineCapacity> {
  const seconds = durationMs / 1000;
  const one = (await countCalls(durationMs, rounds)) / seconds;
  const counts = await Promise.all(Array.from({ length: threads }, () => countCalls(durationMs, rounds)));
  const all = counts.reduce((sum, calls) => sum + calls, 0) / seconds;
  return { oneThreadCallsPerSecond: one, allThreadsCallsPerSecond: all, threads, speedup: all / one };
}
