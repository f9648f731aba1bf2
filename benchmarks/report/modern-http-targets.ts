/**
 * Issue 11's targets for the stateless era over Streamable HTTP, checked against one run's own
 * modern-http numbers: weft's echo throughput >= 4x the official SDK v2's at 16 and 64 in flight
 * (a ratio between servers of the same run, which travels across machines), and weft's echo p99
 * <= 10 ms while 8 CPU calls are in flight (an absolute, but one with a wide margin: the SDK's,
 * whose CPU calls run on its event loop, is in the hundreds of ms).
 */
import { formatNumber } from './markdown-table.js';
import type { Measurement } from './measurement.js';

/** The shape of targets.ts's TargetCheck, repeated so that targets.ts can import this file. */
export interface TargetCheck {
  target: string;
  measured: string;
  met: boolean | undefined;
}

const THROUGHPUT_RATIO = 4;
const P99_LIMIT_MS = 10;

function find(
  measurements: readonly Measurement[],
  server: string,
  metric: string,
  params: Record<string, number>,
): Measurement | undefined {
  return measurements.find(
    (m) =>
      m.scenario === 'modern-http' &&
      m.transport === 'modern-http' &&
      m.server === server &&
      m.metric === metric &&
      Object.entries(params).every(([key, value]) => m.params[key] === value),
  );
}

export function checkModernHttpTargets(measurements: readonly Measurement[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const throughput = `modern HTTP: weft's echo throughput is >= ${THROUGHPUT_RATIO}x the official SDK v2's at 16 and 64 in flight`;
  const ratios: string[] = [];
  let met = true;
  for (const concurrency of [16, 64]) {
    const weft = find(measurements, 'weft', 'calls_per_s', { concurrency });
    const sdk = find(measurements, 'sdk-v2', 'calls_per_s', { concurrency });
    if (!weft || !sdk) continue;
    const ratio = weft.value / sdk.value;
    ratios.push(
      `c=${concurrency}: ${formatNumber(weft.value)} vs ${formatNumber(sdk.value)} calls/s, ${formatNumber(ratio)}x`,
    );
    met &&= ratio >= THROUGHPUT_RATIO;
  }
  checks.push({
    target: throughput,
    measured: ratios.length > 0 ? ratios.join('; ') : 'not measured in this run',
    met: ratios.length === 2 ? met : undefined,
  });

  const latency = `modern HTTP: weft's echo p99 is <= ${P99_LIMIT_MS} ms while 8 CPU calls are in flight`;
  const weftP99 = find(measurements, 'weft', 'cheap_p99', { k: 8 });
  const sdkP99 = find(measurements, 'sdk-v2', 'cheap_p99', { k: 8 });
  checks.push(
    weftP99
      ? {
          target: latency,
          measured:
            `${formatNumber(weftP99.value)} ms` +
            (sdkP99 ? ` (the official SDK v2's: ${formatNumber(sdkP99.value)} ms)` : ''),
          met: weftP99.value <= P99_LIMIT_MS,
        }
      : { target: latency, measured: 'not measured in this run', met: undefined },
  );
  return checks;
}
