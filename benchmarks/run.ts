#!/usr/bin/env node
/**
 * The benchmark runner: `npm run bench` (every scenario), `npm run bench:quick` (the quick subset,
 * shorter windows), `npm run bench -- responsiveness timeouts` (just those), `--servers weft,sdk`
 * (just those servers), `--node-flags=--single-threaded-gc` (every server started with those Node
 * flags; such a run is never saved as latest or quick). Progress goes to stderr, the Markdown report
 * to stdout, the numbers to benchmarks/results/*.json and the charts to benchmarks/results/charts/.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Presets, SingleBar } from 'cli-progress';
import { measureCapacity } from './load/machine-capacity.js';
import { writeCharts } from './report/charts.js';
import { describeMachine } from './report/machine.js';
import type { Measurement, Note } from './report/measurement.js';
import { renderReport } from './report/run-report.js';
import { checkTargets } from './report/targets.js';
import { SCENARIOS } from './scenarios/catalog.js';
import type { Budget, ScenarioContext } from './scenarios/scenario.js';
import { SERVERS } from './servers/server-catalog.js';
import { setServerNodeFlags, stopAllServers } from './servers/server-process.js';

const RESULTS = fileURLToPath(new URL('../../benchmarks/results/', import.meta.url));

const { values, positionals } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    servers: { type: 'string' },
    'node-flags': { type: 'string' },
  },
  allowPositionals: true,
  strict: true,
});

const unknown = positionals.filter((name) => !SCENARIOS.some((scenario) => scenario.name === name));
if (unknown.length > 0) {
  process.stderr.write(
    `Unknown scenario ${unknown.join(', ')}. Scenarios: ${SCENARIOS.map((s) => s.name).join(', ')}\n`,
  );
  process.exit(2);
}
const servers = values.servers
  ? SERVERS.filter((spec) => values.servers!.split(',').includes(spec.id))
  : SERVERS.filter((spec) => !spec.onRequest);
if (servers.length === 0) {
  process.stderr.write(`--servers matched none of: ${SERVERS.map((spec) => spec.id).join(', ')}\n`);
  process.exit(2);
}

const quick = values.quick;
const chosen = SCENARIOS.filter((scenario) =>
  positionals.length > 0
    ? positionals.includes(scenario.name)
    : !scenario.onDemand && (!quick || scenario.quick),
);
const nodeFlags = values['node-flags']?.split(/\s+/).filter(Boolean) ?? [];
setServerNodeFlags(nodeFlags);
const onDemandAlone =
  chosen.length === 1 && chosen[0]!.onDemand === true && !values.servers && nodeFlags.length === 0;
/** Names the result files: latest (full), quick, an on-demand scenario's own name, or partial. */
const runName = onDemandAlone
  ? chosen[0]!.name
  : positionals.length > 0 || values.servers || nodeFlags.length > 0
    ? 'partial'
    : quick
      ? 'quick'
      : 'latest';
const budget: Budget = quick
  ? { quick: true, warmupMs: 250, windowMs: 400, repeats: 3 }
  : { quick: false, warmupMs: 400, windowMs: 700, repeats: 3 };
const machine = describeMachine();
const { cores } = machine;

const measurements: Measurement[] = [];
const durations: Record<string, number> = {};
const notes: Note[] = [];
const bar = new SingleBar(
  {
    stream: process.stderr,
    format: ' {bar} {percentage}% | {value}/{total} | {duration}s | {step}',
    noTTYOutput: true,
    notTTYSchedule: 10_000,
  },
  Presets.shades_classic,
);

process.once('SIGINT', () => {
  bar.stop();
  process.stderr.write('interrupted: stopping servers\n');
  stopAllServers().finally(() => process.exit(130));
});

const started = Date.now();
if (chosen.some((scenario) => scenario.name === 'cpu-throughput')) {
  process.stderr.write('measuring the machine: hash_chain in 1 thread, then in one per core...\n');
  // Five short rounds rather than three long ones: the machine's speed swings over seconds, and one
  // slow window once set the main thread's rate, and with it a ceiling of 2.62x that was none.
  machine.capacity = await measureCapacity(cores, quick ? 400 : 500, 20_000, 5);
}
bar.start(
  chosen.reduce((total, scenario) => total + scenario.steps(budget, servers, cores), 0),
  0,
  { step: 'starting' },
);
for (const scenario of chosen) {
  const context: ScenarioContext = {
    budget,
    cores,
    servers,
    record: (server, transport, metric, value, unit, params = {}) =>
      measurements.push({ scenario: scenario.name, server, transport, metric, value, unit, params }),
    note: (server, transport, text) => notes.push({ scenario: scenario.name, server, transport, text }),
    step: (label) => bar.increment({ step: label }),
  };
  const scenarioStart = Date.now();
  try {
    await scenario.run(context);
    durations[scenario.name] = Math.round((Date.now() - scenarioStart) / 1000);
  } catch (error) {
    notes.push({
      scenario: scenario.name,
      server: 'runner',
      transport: 'stdio',
      text: `the scenario failed: ${(error as Error)?.stack ?? String(error)}`,
    });
    await stopAllServers();
  }
}
bar.stop();
await stopAllServers();
const seconds = Math.round((Date.now() - started) / 1000);
machine.loadAverageAtEnd = loadavg()[0]!;

const checks = checkTargets(measurements, machine.capacity);
await mkdir(RESULTS, { recursive: true });
await writeFile(
  `${RESULTS}${runName}.json`,
  `${JSON.stringify(
    {
      machine,
      command: `node dist/benchmarks/run.js ${process.argv.slice(2).join(' ')}`.trim(),
      date: new Date(started).toISOString(),
      durationSeconds: seconds,
      scenarioSeconds: durations,
      budget,
      nodeFlags,
      results: measurements,
      notes,
      targets: checks,
    },
    null,
    2,
  )}\n`,
);
const chartPaths = await writeCharts(measurements, `${RESULTS}charts`, runName);
const report = renderReport({
  runName,
  machine,
  budget,
  seconds,
  scenarioSeconds: durations,
  scenarios: chosen.map((scenario) => scenario.name),
  measurements,
  notes,
  targets: checks,
  chartPaths,
  nodeFlags,
});
await writeFile(`${RESULTS}${runName}.md`, report);
process.stdout.write(report);
process.exit(0);
