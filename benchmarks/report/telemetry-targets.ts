/**
 * Issue 22's cost targets, checked against one run's telemetry-cost numbers: with the API but no
 * provider registered, inline echo and blocking noop keep >= 0.98x the throughput of `telemetry:
 * false`; with an SDK provider registered (batching processor, in-memory exporter), >= 0.85x;
 * with that SDK sampling 1% of traces (ParentBased(TraceIdRatioBased(0.01)), metrics on), >= 0.9x.
 */
import { TELEMETRY_CALLS } from '../scenarios/telemetry-cost.js';
import { formatNumber } from './markdown-table.js';
import type { Measurement } from './measurement.js';
import type { TargetCheck } from './modern-http-targets.js';

const TARGETS = [
  { server: 'weft-telemetry-none', label: 'no provider registered', ratio: 0.98 },
  { server: 'weft-telemetry-sdk', label: 'an SDK provider registered', ratio: 0.85 },
  { server: 'weft-telemetry-sampled', label: 'an SDK sampling 1% (metrics on)', ratio: 0.9 },
] as const;

export function checkTelemetryTargets(measurements: readonly Measurement[]): TargetCheck[] {
  return [...TARGETS.map((spec) => checkRatio(measurements, spec)), checkOwnCost(measurements)];
}

/** weft's own CPU per inline call above the SDK's floor, sampling every trace: <= 3 µs. */
function checkOwnCost(measurements: readonly Measurement[]): TargetCheck {
  const target =
    "with an SDK sampling every trace, weft's own CPU per inline call above the SDK's floor is <= 3 µs";
  const own = measurements.find(
    (m) =>
      m.scenario === 'telemetry-cost' &&
      m.server === 'weft-telemetry-sdk' &&
      m.metric === 'weft_own_us_over_floor',
  );
  if (own === undefined) return { target, measured: 'not measured in this run', met: undefined };
  return { target, measured: `${formatNumber(own.value)} µs`, met: own.value <= 3 };
}

function checkRatio(
  measurements: readonly Measurement[],
  { server, label, ratio }: (typeof TARGETS)[number],
): TargetCheck {
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
}
