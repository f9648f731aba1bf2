/**
 * Issue 19's benchmark target, checked against one run's own modern-http-auth numbers: a server
 * protected by `oauthResourceServer` keeps >= 0.9x the echo throughput of the same server without
 * auth at 16 in flight (a ratio within one run, which travels across machines).
 */
import { formatNumber } from './markdown-table.js';
import type { Measurement } from './measurement.js';
import type { TargetCheck } from './modern-http-targets.js';

const RATIO = 0.9;

export function checkAuthTargets(measurements: readonly Measurement[]): TargetCheck[] {
  const target = `modern HTTP with oauthResourceServer: echo throughput >= ${RATIO}x the same server without auth at 16 in flight`;
  const find = (server: string) =>
    measurements.find(
      (m) =>
        m.scenario === 'modern-http-auth' &&
        m.server === server &&
        m.metric === 'calls_per_s' &&
        m.params.concurrency === 16,
    );
  const plain = find('weft');
  const authed = find('weft-auth');
  if (!plain || !authed) return [{ target, measured: 'not measured in this run', met: undefined }];
  const ratio = authed.value / plain.value;
  return [
    {
      target,
      measured: `${formatNumber(authed.value)} vs ${formatNumber(plain.value)} calls/s: ${formatNumber(ratio)}x`,
      met: ratio >= RATIO,
    },
  ];
}
