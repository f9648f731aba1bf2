/**
 * The soak's chart: RSS, live heap, threads, descriptors and event-loop delay over time, one panel
 * each, drawn by vega-lite and rendered headless to SVG by vega, as the benchmark's other charts
 * (benchmarks/report/charts.ts).
 */
import { writeFile } from 'node:fs/promises';
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { Sample } from './soak-verdict.js';

const SERIES: [keyof Sample, string][] = [
  ['rssMiB', 'RSS (MiB)'],
  ['heapMiB', 'live heap (MiB)'],
  ['threads', 'threads'],
  ['fds', 'file descriptors'],
  ['loopP99Ms', 'event-loop delay p99 (ms)'],
];

export async function writeSoakChart(samples: readonly Sample[], title: string, path: string): Promise<void> {
  const values = samples.flatMap((sample) =>
    SERIES.map(([key, metric]) => ({ t: sample.t, phase: sample.phase, metric, value: sample[key] })),
  );
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    data: { values },
    facet: { row: { field: 'metric', type: 'nominal', sort: SERIES.map(([, m]) => m), title: null } },
    resolve: { scale: { y: 'independent' } },
    spec: {
      width: 640,
      height: 110,
      mark: { type: 'line', point: { size: 12 } },
      encoding: {
        x: { field: 't', type: 'quantitative', title: 'seconds' },
        y: { field: 'value', type: 'quantitative', title: null, scale: { zero: false } },
        color: { field: 'phase', type: 'nominal', sort: ['baseline', 'load', 'after'] },
      },
    },
  };
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  await writeFile(path, svg);
}
