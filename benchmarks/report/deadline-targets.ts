/**
 * Issue 41's deadline target, checked against one run's first-call-deadline numbers: a runaway
 * call that is the first on a fresh server, or the first on the thread that replaced a terminated
 * one, is answered at most 15 ms past its deadline (median over the run's rounds), over stdio and
 * over HTTP. An absolute bound, unlike the ratios beside it: lateness is the server's own delay
 * between two moments it controls, which a shared machine's load stretches only a little.
 */
import { formatNumber } from './markdown-table.js';
import type { Measurement } from './measurement.js';
import type { TargetCheck } from './modern-http-targets.js';

const BOUND_MS = 15;
const CASES = [
  { metric: 'fresh_server_late_ms', label: 'on a fresh server' },
  { metric: 'replaced_thread_late_ms', label: 'on the thread that replaced a terminated one' },
] as const;
const TRANSPORTS = ['stdio', 'http', 'modern-http'] as const;

export function checkDeadlineTargets(measurements: readonly Measurement[]): TargetCheck[] {
  return CASES.map(({ metric, label }) => {
    const target = `a runaway first call ${label} is answered <= ${BOUND_MS} ms past its deadline over stdio and HTTP (median)`;
    const found = TRANSPORTS.flatMap((transport) => {
      const late = measurements.find(
        (m) => m.scenario === 'first-call-deadline' && m.metric === metric && m.transport === transport,
      );
      return late ? [{ transport, ms: late.value }] : [];
    });
    if (found.length === 0) return { target, measured: 'not measured in this run', met: undefined };
    return {
      target,
      measured: found.map(({ transport, ms }) => `${transport} ${formatNumber(ms)} ms`).join(', '),
      met: found.every(({ ms }) => ms <= BOUND_MS),
    };
  });
}
