/**
 * What replacing terminated threads costs in native memory, for the two ways a Piscina pool can do
 * it, side by side in one run: `abort` (Piscina's task abort: the thread is terminated and a
 * replacement started at once, beside the dying thread) and `exit` (the thread is terminated
 * directly and Piscina replaces it from its exit handler, as weft's engine does since the soak found
 * Node 24's RSS creeping; lib/engine/pool-executor.ts).
 *
 * `node dist/benchmarks/thread-replacement-churn.js [--seconds 240]` starts one child process per
 * way, at the same time. Each keeps two threads busy and terminates each one 20 ms into its task,
 * and samples its RSS and glibc's arenas (heaps of 64 MiB, aligned to 64 MiB, in /proc/self/smaps)
 * every 10 s. Linux with glibc only.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Piscina } from 'piscina';
import { mallocArenas, rssMiB } from './load/process-probe.js';

interface Sample {
  s: number;
  rssMiB: number;
  arenas: number;
  arenaMiB: number;
}

async function churn(mode: 'abort' | 'exit', seconds: number): Promise<void> {
  const pool = new Piscina({
    filename: new URL('./thread-replacement-task.js', import.meta.url).href,
    minThreads: 2,
    maxThreads: 2,
    idleTimeout: 0,
  });
  const ids = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
  const view = new Int32Array(ids);
  const end = Date.now() + seconds * 1000;
  let terminated = 0;
  const lane = async (index: number) => {
    while (Date.now() < end) {
      Atomics.store(view, index, 0);
      const abort = new AbortController();
      const task = pool.run({ ids, lane: index }, { signal: abort.signal }).catch(() => undefined);
      while (Atomics.load(view, index) === 0) await new Promise((resolve) => setTimeout(resolve, 2));
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (mode === 'abort') {
        abort.abort();
      } else {
        const id = Atomics.load(view, index);
        const thread = pool.threads.find((worker) => worker.threadId === id)!;
        const exited = new Promise((resolve) => thread.once('exit', resolve));
        void thread.terminate();
        await exited;
      }
      await task;
      terminated++;
    }
  };
  const started = Date.now();
  const samples: Sample[] = [];
  const sample = () => {
    samples.push({
      s: Math.round((Date.now() - started) / 1000),
      rssMiB: rssMiB(process.pid) ?? Number.NaN,
      ...(mallocArenas('self') ?? { arenas: Number.NaN, arenaMiB: Number.NaN }),
    });
  };
  const sampler = setInterval(sample, 10_000);
  await Promise.all([lane(0), lane(1)]);
  clearInterval(sampler);
  sample();
  await pool.destroy();
  process.stdout.write(`${JSON.stringify({ mode, node: process.version, terminated, samples })}\n`);
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

async function sideBySide(seconds: number): Promise<void> {
  const self = fileURLToPath(import.meta.url);
  const run = (mode: string) =>
    new Promise<{ mode: string; terminated: number; samples: Sample[] }>((resolve, reject) => {
      const child = spawn(process.execPath, [self, '--child', mode, '--seconds', String(seconds)], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
      });
      child.on('exit', (code) =>
        code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${mode}: exit ${code}`)),
      );
    });
  process.stderr.write(
    `thread-replacement-churn: node ${process.version}, ${seconds} s, abort and exit side by side\n`,
  );
  const results = await Promise.all([run('abort'), run('exit')]);
  console.log(
    '| way | threads terminated | RSS, mean of 1st half -> 2nd half (MiB) | arenas at the end | arena RSS first -> last (MiB) |',
  );
  console.log('|---|---|---|---|---|');
  for (const { mode, terminated, samples } of results) {
    const half = Math.floor(samples.length / 2);
    const first = mean(samples.slice(0, half).map((s) => s.rssMiB));
    const second = mean(samples.slice(half).map((s) => s.rssMiB));
    const last = samples.at(-1)!;
    console.log(
      `| ${mode} | ${terminated} | ${first.toFixed(1)} -> ${second.toFixed(1)} | ${last.arenas} | ${samples[0]!.arenaMiB.toFixed(1)} -> ${last.arenaMiB.toFixed(1)} |`,
    );
  }
}

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '240' }, child: { type: 'string' } },
});
if (values.child === 'abort' || values.child === 'exit') await churn(values.child, Number(values.seconds));
else await sideBySide(Number(values.seconds));
