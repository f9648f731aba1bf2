/**
 * SVG charts of a run, drawn by vega-lite (spec) and vega (headless rendering to SVG): cheap-call
 * latency under CPU load, CPU-tool throughput versus concurrency, echo throughput per transport,
 * and how each server handles a runaway tool. Each reads the same flat measurements as the tables.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { REPORTED_SERVERS } from '../servers/server-catalog.js';
import type { Measurement } from './measurement.js';

const labelOf = (id: string) => REPORTED_SERVERS.find((spec) => spec.id === id)?.label ?? id;
const SERVER_ORDER = REPORTED_SERVERS.map((spec) => spec.label);

interface Chart {
  file: string;
  spec: TopLevelSpec;
}

function rows(measurements: readonly Measurement[], scenario: string, metric: string) {
  return measurements
    .filter((m) => m.scenario === scenario && m.metric === metric)
    .map((m) => ({ server: labelOf(m.server), transport: m.transport, value: m.value, ...m.params }));
}

const colour = { field: 'server', type: 'nominal', sort: SERVER_ORDER, title: 'server' } as const;

function charts(measurements: readonly Measurement[]): Chart[] {
  const result: Chart[] = [];
  const latency = rows(measurements, 'responsiveness', 'cheap_p99');
  if (latency.length > 0) {
    result.push({
      file: 'responsiveness.svg',
      spec: {
        $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
        title: 'Cheap call (echo) p99 latency with K CPU-bound calls in flight (lower is better)',
        width: 520,
        height: 300,
        data: { values: latency },
        mark: { type: 'line', point: true },
        encoding: {
          x: { field: 'k', type: 'ordinal', title: 'K: CPU-bound calls in flight' },
          y: {
            field: 'value',
            type: 'quantitative',
            scale: { type: 'log' },
            title: 'echo p99 latency (ms, log)',
          },
          color: colour,
        },
      },
    });
  }
  const cpu = rows(measurements, 'cpu-throughput', 'calls_per_s');
  if (cpu.length > 0) {
    result.push({
      file: 'cpu-throughput.svg',
      spec: {
        $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
        title: 'CPU tool (hash_chain) calls per second vs concurrency (higher is better)',
        width: 520,
        height: 300,
        data: { values: cpu },
        mark: { type: 'line', point: true },
        encoding: {
          x: { field: 'concurrency', type: 'ordinal', title: 'calls in flight' },
          y: { field: 'value', type: 'quantitative', title: 'calls/s' },
          color: colour,
        },
      },
    });
  }
  const cheap = rows(measurements, 'cheap-throughput', 'calls_per_s');
  if (cheap.length > 0) {
    result.push({
      file: 'cheap-throughput.svg',
      spec: {
        $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
        title: 'Inline echo calls per second by transport and concurrency (higher is better)',
        data: { values: cheap },
        mark: 'bar',
        width: 200,
        height: 260,
        encoding: {
          column: { field: 'transport', type: 'nominal', title: 'transport', sort: ['stdio', 'http', 'ws'] },
          x: { field: 'concurrency', type: 'ordinal', title: 'calls in flight' },
          xOffset: { field: 'server', sort: SERVER_ORDER },
          y: { field: 'value', type: 'quantitative', title: 'calls/s' },
          color: colour,
        },
      },
    });
  }
  const stopping = measurements
    .filter((m) => m.scenario === 'timeouts' && m.unit === 'ms')
    .map((m) => ({
      server: labelOf(m.server),
      metric: m.metric.replaceAll('_', ' '),
      value: Math.max(1, m.value),
    }));
  if (stopping.length > 0) {
    result.push({
      file: 'timeouts.svg',
      spec: {
        $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
        title:
          'A runaway tool (2.5 s of CPU, 2 s deadline): how late, and how long until served again (lower is better)',
        data: { values: stopping },
        mark: 'bar',
        width: 220,
        height: 260,
        encoding: {
          column: { field: 'metric', type: 'nominal', title: null },
          x: { field: 'server', type: 'nominal', sort: SERVER_ORDER, axis: null },
          y: {
            field: 'value',
            type: 'quantitative',
            // Bars on a log scale need a baseline above zero and no stacking.
            stack: null,
            scale: { type: 'log', domainMin: 1 },
            title: 'ms after the deadline (log)',
          },
          color: colour,
        },
      },
    });
  }
  return result;
}

/** Renders the charts into `directory`, file names prefixed with the run's name; returns the paths. */
export async function writeCharts(
  measurements: readonly Measurement[],
  directory: string,
  prefix: string,
): Promise<string[]> {
  await mkdir(directory, { recursive: true });
  const written: string[] = [];
  for (const chart of charts(measurements)) {
    const view = new View(parse(compile(chart.spec).spec), { renderer: 'none' });
    const svg = await view.toSVG();
    view.finalize();
    const path = join(directory, `${prefix}-${chart.file}`);
    await writeFile(path, svg);
    written.push(path);
  }
  return written;
}
