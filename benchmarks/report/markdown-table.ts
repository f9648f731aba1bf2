/**
 * The Markdown tables printed on stdout: one per scenario, a row per transport, point and metric,
 * a column per server, so the numbers to compare sit side by side.
 */

import { REPORTED_SERVERS } from '../servers/server-catalog.js';
import type { Measurement, Note } from './measurement.js';

/** Parameters that tell points apart; the rest (workload details) are the same on every row. */
const POINT_KEYS = [
  'phase',
  'k',
  'concurrency',
  'threads',
  'workers',
  'mode',
  'neighbours',
  'nice_increment',
  'kind',
  'bytes',
  'upToBytes',
  'placement',
];

export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Number.isInteger(value)) return value.toLocaleString('en-US'); // counts: 0, not 0.00
  const size = Math.abs(value);
  if (size >= 100) return Math.round(value).toLocaleString('en-US');
  if (size >= 10) return value.toFixed(1);
  return value.toPrecision(3);
}

function pointOf(measurement: Measurement): string {
  return POINT_KEYS.filter((key) => key in measurement.params)
    .map((key) => `${key}=${measurement.params[key]}`)
    .join(' ');
}

export function scenarioTable(scenario: string, measurements: readonly Measurement[]): string {
  const rows = measurements.filter((m) => m.scenario === scenario);
  if (rows.length === 0) return '';
  const servers = REPORTED_SERVERS.filter((spec) => rows.some((m) => m.server === spec.id));
  const keys: string[] = [];
  const cells = new Map<string, Map<string, string>>();
  for (const m of rows) {
    const key = [m.transport, pointOf(m), `${m.metric} (${m.unit})`].join('|');
    if (!cells.has(key)) {
      keys.push(key);
      cells.set(key, new Map());
    }
    cells.get(key)!.set(m.server, formatNumber(m.value));
  }
  const header = ['transport', 'point', 'metric', ...servers.map((spec) => spec.label)];
  const lines = [
    `| ${header.join(' | ')} |`,
    `| ${header.map((_, index) => (index < 3 ? '---' : '---:')).join(' | ')} |`,
  ];
  for (const key of keys) {
    const row = cells.get(key)!;
    lines.push(`| ${[...key.split('|'), ...servers.map((spec) => row.get(spec.id) ?? '–')].join(' | ')} |`);
  }
  return lines.join('\n');
}

export function notesList(notes: readonly Note[]): string {
  if (notes.length === 0) return '';
  const label = (id: string) => REPORTED_SERVERS.find((spec) => spec.id === id)?.label ?? id;
  const unique = [...new Set(notes.map((n) => `- ${label(n.server)} (${n.transport}): ${n.text}`))];
  return unique.join('\n');
}
