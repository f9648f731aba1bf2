/**
 * Issue 41's responsiveness target for the 2026-07-28 era, checked against one run: the official v2
 * client's echo p99 over Streamable HTTP while 8 CPU calls saturate the pool is <= 15 ms
 * (v2-client-echo), set beside the legacy promise over stdio, echo p99 <= 10 ms under the same load
 * (responsiveness, K = 8). Absolute bounds with a wide margin: a server whose CPU calls ran on its
 * event loop would be in the hundreds of ms.
 */
import { formatNumber } from './markdown-table.js';
import type { Measurement } from './measurement.js';
import type { TargetCheck } from './modern-http-targets.js';

const MODERN_P99_MS = 15;
const STDIO_P99_MS = 10;

export function checkV2ClientTargets(measurements: readonly Measurement[]): TargetCheck[] {
  const target = `2026-07-28 over HTTP, the official v2 client's echo p99 is <= ${MODERN_P99_MS} ms while 8 CPU calls are in flight, and stdio's <= ${STDIO_P99_MS} ms`;
  const at = (scenario: string, transport: string, metric: string) =>
    measurements.find(
      (m) =>
        m.scenario === scenario &&
        m.server === 'weft' &&
        m.transport === transport &&
        m.metric === metric &&
        m.params.k === 8,
    );
  const modern = at('v2-client-echo', 'modern-http', 'v2_client_echo_p99');
  const own = at('v2-client-echo', 'modern-http', 'server_echo_p99');
  const stdio = measurements.find(
    (m) =>
      m.scenario === 'responsiveness' &&
      m.server === 'weft' &&
      m.transport === 'stdio' &&
      m.metric === 'cheap_p99' &&
      m.params.k === 8,
  );
  if (!modern && !stdio) return [{ target, measured: 'not measured in this run', met: undefined }];
  const parts: string[] = [];
  if (modern) {
    parts.push(
      `v2 client over HTTP ${formatNumber(modern.value)} ms` +
        (own ? ` (the server's own time: ${formatNumber(own.value)} ms)` : ''),
    );
  }
  if (stdio) parts.push(`stdio ${formatNumber(stdio.value)} ms`);
  return [
    {
      target,
      measured: parts.join(', '),
      met: modern && stdio ? modern.value <= MODERN_P99_MS && stdio.value <= STDIO_P99_MS : undefined,
    },
  ];
}
