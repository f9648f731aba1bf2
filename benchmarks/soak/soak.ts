#!/usr/bin/env node
/**
 * The soak: `npm run soak -- --minutes N` (default 1). Starts benchmarks/servers/soak-server in a
 * child process, puts a steady mixed load on it over HTTP (both eras) and stdio (soak-ops.ts), and
 * samples its RSS, live heap, threads, descriptors and event-loop delay every few seconds: before
 * the load (baseline), during it, and after it until threads and descriptors settle. Prints the
 * verdict (soak-verdict.ts), writes JSON and an SVG chart to --out (default benchmarks/results),
 * and exits 1 when any check fails. Loopback only; it stops by itself.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort } from '../../test/support/free-port.js';
import { LoadClient } from '../load/load-client.js';
import { cpuPercentOver, mallocArenas, rssMiB, threadCount } from '../load/process-probe.js';
import { StdioWire } from '../load/stdio-wire.js';
import { HttpExchanges } from './http-exchange.js';
import { RequestLedger } from './request-ledger.js';
import { writeSoakChart } from './soak-chart.js';
import { SoakOps } from './soak-ops.js';
import { MEMORY_CHECKS, type Sample, verdict } from './soak-verdict.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '1' },
    out: { type: 'string', default: 'benchmarks/results' },
    threads: { type: 'string', default: '2' },
    'sample-seconds': { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '8' },
    fairness: { type: 'string', default: 'on' },
    // 'advisory': RSS and heap flatness are printed but do not fail the run. For short runs
    // (.ci/run's 2 minutes), which end inside V8's warm-up: compiled code and its feedback keep
    // growing for minutes (a heap snapshot diff shows it), so only a long run judges memory.
    'memory-checks': { type: 'string', default: 'strict' },
  },
});
const minutes = Number(values.minutes);
const sampleMs = Number(values['sample-seconds']) * 1000;
const concurrency = Math.max(2, Number(values.concurrency));
const SERVER = fileURLToPath(new URL('../servers/soak-server.js', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const fdCount = (pid: number) => {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return Number.NaN;
  }
};

const port = await freePort();
const child = spawn(
  process.execPath,
  [
    '--expose-gc',
    SERVER,
    '--http',
    String(port),
    '--threads',
    values.threads,
    '--sample-ms',
    String(sampleMs),
    '--fairness',
    values.fairness,
  ],
  { stdio: ['pipe', 'pipe', 'pipe'] },
) as ChildProcessWithoutNullStreams;
const pid = child.pid!;
let alive = true;
child.once('exit', (code, signal) => {
  alive = false;
  if (phase !== 'done') {
    process.stderr.write(`soak: the server exited (code ${code}, signal ${signal}); its last words:\n`);
    process.stderr.write(`${serverLog.slice(-15).join('\n')}\n`);
  }
});

let phase: Sample['phase'] | 'done' = 'baseline';
const started = performance.now();
const samples: Sample[] = [];
const serverLog: string[] = [];
createInterface({ input: child.stderr }).on('line', (line) => {
  let parsed:
    | { soak?: string; heapUsed?: number; external?: number; loop?: { p99: number; max: number } }
    | undefined;
  try {
    parsed = line.startsWith('{"soak"') ? JSON.parse(line) : undefined;
  } catch {}
  if (parsed?.soak !== 'sample') {
    // The last lines matter (why it died); stack frames and repeats of one message do not.
    if (!line.startsWith('    at ') && line !== serverLog.at(-1)) serverLog.push(line);
    if (serverLog.length > 100) serverLog.shift();
    return;
  }
  if (phase === 'done') return;
  samples.push({
    t: (performance.now() - started) / 1000,
    phase,
    rssMiB: rssMiB(pid) ?? Number.NaN,
    heapMiB: parsed.heapUsed! / 2 ** 20,
    externalMiB: (parsed.external ?? Number.NaN) / 2 ** 20,
    ...(mallocArenas(pid) ?? { arenas: Number.NaN, arenaMiB: Number.NaN }),
    threads: threadCount(pid) ?? Number.NaN,
    fds: fdCount(pid),
    loopP99Ms: parsed.loop!.p99,
    loopMaxMs: parsed.loop!.max,
  });
});

const client = new LoadClient(new StdioWire(child));
await client.initialize();
const http = new HttpExchanges(port);
const ledger = new RequestLedger();
const ops = new SoakOps(http, ledger);

// Baseline: the server idle, its pool warmed up.
while (samples.length < 2) await sleep(200);
process.stderr.write(`soak: node ${process.version}, server pid ${pid}, ${minutes} min of load\n`);
phase = 'load';
const loadEnds = performance.now() + minutes * 60_000;
const httpOps = [
  () => ops.legacySession(),
  () => ops.legacySession(),
  () => ops.legacySession(),
  () => ops.modernCall(),
  () => ops.modernCall(),
  () => ops.modernCall(),
  () => ops.modernCancel(),
  () => ops.modernRounds(),
  () => ops.modernTask(),
  () => ops.malformed(),
];
const loop = async (op: () => Promise<void>) => {
  while (alive && performance.now() < loadEnds) await op().catch(() => {});
};
const progress = setInterval(() => {
  const last = samples.at(-1);
  process.stderr.write(
    `soak: ${((performance.now() - started) / 1000).toFixed(0)} s, ${ledger.sent} requests (${ledger.unanswered} unanswered), rss ${last?.rssMiB.toFixed(0)} MiB, heap ${last?.heapMiB.toFixed(1)} MiB, external ${last?.externalMiB.toFixed(1)} MiB, malloc arenas ${last?.arenaMiB.toFixed(1)} MiB in ${last?.arenas}, threads ${last?.threads}, fds ${last?.fds}\n`,
  );
}, 30_000);
await Promise.all([
  ...Array.from({ length: concurrency - 2 }, () =>
    loop(() => httpOps[Math.floor(Math.random() * httpOps.length)]!()),
  ),
  loop(() => ops.stdio(client)),
  loop(() => ops.stdio(client)),
]);
clearInterval(progress);

// After: the load's sockets closed; threads and descriptors should return to their baseline.
http.close();
phase = 'after';
const baseline = samples.filter((s) => s.phase === 'baseline').at(-1)!;
const settleBy = performance.now() + 30_000;
let settled = { threads: threadCount(pid) ?? Number.NaN, fds: fdCount(pid) };
while (alive && performance.now() < settleBy) {
  settled = { threads: threadCount(pid) ?? Number.NaN, fds: fdCount(pid) };
  if (settled.threads <= baseline.threads && settled.fds <= baseline.fds) break;
  await sleep(500);
}
const afterSamples = samples.length;
while (alive && samples.length < afterSamples + 2) await sleep(200);
const idleCpu = alive ? await cpuPercentOver(pid, 5_000) : undefined;
phase = 'done';
const serverAlive = alive;
await client.close().catch(() => {});
child.kill('SIGTERM');
await new Promise((resolve) => (alive ? child.once('exit', resolve) : resolve(undefined)));

const advisory = values['memory-checks'] === 'advisory' ? MEMORY_CHECKS : new Set<string>();
const checks = verdict(samples, ledger, settled, idleCpu, serverAlive);
const ok = checks.every((check) => check.ok || advisory.has(check.name));
const name = `soak-node${process.versions.node.split('.')[0]}-${minutes}m${values.fairness === 'off' ? '-fairness-off' : ''}`;
await mkdir(values.out, { recursive: true });
const chart = join(values.out, 'charts', `${name}.svg`);
await mkdir(join(values.out, 'charts'), { recursive: true });
await writeSoakChart(
  samples,
  `weft soak, Node ${process.version}, ${minutes} min (${ok ? 'pass' : 'FAIL'})`,
  chart,
);
await writeFile(
  join(values.out, `${name}.json`),
  `${JSON.stringify(
    {
      node: process.version,
      minutes,
      threads: Number(values.threads),
      concurrency,
      fairness: values.fairness,
      ok,
      checks,
      requests: { ...ledger, byKind: Object.fromEntries(ledger.byKind) },
      settled,
      idleCpuPercent: idleCpu,
      samples,
      serverLog,
    },
    null,
    1,
  )}\n`,
);
for (const check of checks)
  process.stdout.write(
    `${check.ok ? 'ok  ' : advisory.has(check.name) ? 'warn' : 'FAIL'} ${check.name}: ${check.detail}\n`,
  );
process.stdout.write(`${ok ? 'PASS' : 'FAIL'}: chart ${chart}, data ${join(values.out, `${name}.json`)}\n`);
process.exit(ok ? 0 : 1);
