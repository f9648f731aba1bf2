/**
 * The Markdown report of a run (printed on stdout and saved next to the JSON): the machine, one
 * table per scenario, the notes, and the targets checked against this run's numbers.
 */
import type { Budget } from '../scenarios/scenario.js';
import type { Machine } from './machine.js';
import { notesList, scenarioTable } from './markdown-table.js';
import type { Measurement, Note } from './measurement.js';
import { type TargetCheck, targetsTable } from './targets.js';

export interface RunSummary {
  runName: string;
  machine: Machine;
  budget: Budget;
  seconds: number;
  scenarioSeconds: Record<string, number>;
  scenarios: readonly string[];
  measurements: readonly Measurement[];
  notes: readonly Note[];
  targets: readonly TargetCheck[];
  chartPaths: readonly string[];
  /** Node flags every server was started with (`--node-flags`); none in a default run. */
  nodeFlags: readonly string[];
}

export function renderReport(run: RunSummary): string {
  const { machine } = run;
  const timings = Object.entries(run.scenarioSeconds)
    .map(([name, seconds]) => `${name} ${seconds} s`)
    .join(', ');
  const out: string[] = [
    `# weft benchmarks (${run.runName} run)`,
    '',
    `Machine: ${machine.cores} cores, ${machine.cpuModel}, ${machine.memoryGiB} GiB, Node ${machine.nodeVersion}, ` +
      `${machine.platform}. Load average ${machine.loadAverageAtStart.toFixed(2)} at the start, ` +
      `${machine.loadAverageAtEnd?.toFixed(2) ?? '?'} at the end. ` +
      `Run took ${run.seconds} s (${timings}); every point is the median of ${run.budget.repeats} interleaved windows.`,
  ];
  if (run.nodeFlags.length > 0) {
    out.push(
      '',
      `Every server ran with the Node flags \`${run.nodeFlags.join(' ')}\`; the capacity probe below did not.`,
    );
  }
  if (machine.capacity) {
    const c = machine.capacity;
    out.push(
      '',
      `Machine capacity at the start (hash_chain in plain worker threads, no server): ` +
        `${c.oneThreadCallsPerSecond.toFixed(1)} calls/s on 1 thread, ${c.allThreadsCallsPerSecond.toFixed(1)} on ` +
        `${c.threads}: a ${c.speedup.toFixed(2)}x ceiling for any pool. On the main thread, where inline ` +
        `servers run their tools: ${c.mainThreadCallsPerSecond.toFixed(1)} calls/s, so a pool can show at most ` +
        `${c.speedupOverMainThread.toFixed(2)}x an inline server.`,
    );
  }
  for (const scenario of run.scenarios) {
    const table = scenarioTable(scenario, run.measurements);
    if (table) out.push('', `## ${scenario}`, '', table);
  }
  const notes = notesList(run.notes);
  if (notes) out.push('', '## Notes', '', notes);
  out.push('', '## Targets', '', targetsTable(run.targets));
  out.push(
    '',
    `Results: benchmarks/results/${run.runName}.json (this report: benchmarks/results/${run.runName}.md)`,
  );
  if (run.chartPaths.length > 0) {
    out.push(`Charts: ${run.chartPaths.map((path) => path.slice(path.indexOf('benchmarks/'))).join(', ')}`);
  }
  return `${out.join('\n')}\n`;
}
