/**
 * Issue 22's cost targets, checked against one run's telemetry-cost numbers: with the API but no
 * provider registered, inline echo and blocking noop keep >= 0.98x the throughput of `telemetry:
 * false`; with an SDK provider registered (batching processor, in-memory exporter), >= 0.85x.
 */
import { TELEMETRY_CALLS } from '../scenarios/telemetry-cost.js';
import { formatNumber } from './markdown-table.js';
import type { Measurement } from './measurement.js';
import type { TargetCheck } from './modern-http-targets.js';

const TARGETS = [
  { server: 'weft-telemetry-none', label: 'no provider registered', ratio: 0.98 },
  { server: 'weft-telemetry-sdk', label: 'an SDK provider registered', ratio: 0.85 },
] as const;

export function checkTelemetryTargets(measurements: readonly Measurement[]): TargetCheck[] {
  return TARGETS.map(({ server, label, ratio }) => {
    const target = `with ${label}: inline echo and blocking noop throughput >= ${ratio}x of telemetry: false (stdio, 16 in flight)`;
    const found = TELEMETRY_CALLS.map(({ mode }) =>
      measurements.find(
        (m) =>
          m.scenario === 'telemetry-cost' &&
          m.server === server &&
          m.metric === 'ratio_to_off' &&
          m.params.mode === mode,
      ),
    );
    if (found.some((m) => m === undefined))
      return { target, measured: 'not measured in this run', met: undefined };
    const measured = found.map((m) => `${m!.params.mode} ${formatNumber(m!.value)}x`).join(', ');
    return { target, measured, met: found.every((m) => m!.value >= ratio) };
  });
}
