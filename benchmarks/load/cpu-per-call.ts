#!/usr/bin/env node
/**
 * Server CPU per trivial blocking call, for builds or settings side by side: each contender is a
 * server script (plus flags) serving stdio, driven by the same raw JSON-RPC closed loop as the
 * blocking-throughput scenario, with its main thread's CPU and its other threads' read from /proc
 * around every window. Windows are interleaved and their order turns each round, so a shared
 * machine's noise falls on every contender alike; the ratio to the first contender is taken round
 * by round.
 *
 *   node dist/benchmarks/load/cpu-per-call.js [--concurrency 8,64] [--window-ms 800] [--rounds 9]
 *     label=path/to/server.js[:flag:value...] ...
 *
 * `sdk-piscina` and `stdio-floor` name the SDK + Piscina peer and the stdio floor
 * (stdio-piscina-floor.ts). What it is for: telling whether a change to the pool path moved the
 * CPU a call costs, against the same build before it (two checkouts built apart), when the
 * scenario's few short windows cannot.
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type RunningServer, startServer, stopAllServers } from '../servers/server-process.js';
import { closedLoop } from './closed-loop.js';
import { cpuBetween, readThreadCpu } from './thread-cpu.js';

const NAMED: Record<string, string> = {
  'sdk-piscina': fileURLToPath(new URL('../peers/sdk-piscina-server.js', import.meta.url)),
  'stdio-floor': fileURLToPath(new URL('./stdio-piscina-floor.js', import.meta.url)),
};

const { values, positionals } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '8,64' },
    'window-ms': { type: 'string', default: '800' },
    rounds: { type: 'string', default: '9' },
  },
  allowPositionals: true,
});
if (positionals.length === 0) {
  process.stderr.write('usage: cpu-per-call.js [--concurrency 8,64] label=server.js[:flag:value] ...\n');
  process.exit(2);
}

interface Window {
  main: number;
  others: number;
  rate: number;
}

const CALL = { tool: 'noop_blocking', args: {} };
const contenders: { label: string; server: RunningServer }[] = [];
for (const definition of positionals) {
  const [label, spec] = definition.split('=') as [string, string];
  const [script, ...flags] = spec.split(':') as [string, ...string[]];
  const server = await startServer(
    {
      id: 'weft',
      label,
      blockingNoop: CALL.tool,
      hasPool: true,
      command: () => ({ script: NAMED[script] ?? script, args: ['--stdio', ...flags] }),
    },
    'stdio',
  );
  contenders.push({ label, server });
}

async function measure(server: RunningServer, concurrency: number, ms: number): Promise<Window> {
  const before = readThreadCpu(server.pid);
  const result = await closedLoop(server.client, CALL, concurrency, ms);
  const after = readThreadCpu(server.pid);
  if (!before || !after) throw new Error('no /proc: CPU per call needs Linux');
  if (result.failed > 0) process.stderr.write(`failures: ${result.firstFailure}\n`);
  const { main, others } = cpuBetween(before, after);
  return {
    main: (main * 1e6) / result.completed,
    others: (others * 1e6) / result.completed,
    rate: result.callsPerSecond,
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

try {
  for (const { server } of contenders) await measure(server, 16, 1_200); // warm up every path
  const windowMs = Number(values['window-ms']);
  const rounds = Number(values.rounds);
  for (const concurrency of values.concurrency!.split(',').map(Number)) {
    const windows: Window[][] = contenders.map(() => []);
    for (let round = 0; round < rounds; round++) {
      for (let turn = 0; turn < contenders.length; turn++) {
        const index = (round + turn) % contenders.length;
        windows[index]!.push(await measure(contenders[index]!.server, concurrency, windowMs));
      }
    }
    for (const [index, { label }] of contenders.entries()) {
      const own = windows[index]!;
      const total = median(own.map((w) => w.main + w.others));
      const ratio =
        index === 0
          ? ''
          : `, ${median(own.map((w, round) => (w.main + w.others) / (windows[0]![round]!.main + windows[0]![round]!.others))).toFixed(2)}x the first`;
      process.stdout.write(
        `${concurrency} in flight, ${label}: ${total.toFixed(1)} µs per call (main ${median(own.map((w) => w.main)).toFixed(1)}, others ${median(own.map((w) => w.others)).toFixed(1)}), ${Math.round(median(own.map((w) => w.rate)))} calls/s${ratio}\n`,
      );
    }
  }
} finally {
  await stopAllServers();
}
