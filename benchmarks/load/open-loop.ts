/**
 * Open-loop probing: one cheap call sent every `intervalMs`, whether or not earlier ones have been
 * answered. A stalled server cannot slow the probe down, so its latencies show the whole stall
 * (no coordinated omission), which is what "responsiveness" means to a client.
 */
import { performance } from 'node:perf_hooks';
import type { CallSpec } from './closed-loop.js';
import { LatencyHistogram } from './latency-histogram.js';
import type { LoadClient, Reply } from './load-client.js';

export async function openLoop(
  client: LoadClient,
  call: CallSpec,
  intervalMs: number,
  durationMs: number,
): Promise<LatencyHistogram> {
  const latency = new LatencyHistogram();
  const replies: Promise<Reply>[] = [];
  const start = performance.now();
  for (let sent = 0; ; sent++) {
    const due = start + sent * intervalMs;
    if (due >= start + durationMs) break;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    replies.push(
      client.call(call.tool, call.args).reply.then((reply) => {
        latency.recordMs(reply.latencyMs);
        return reply;
      }),
    );
  }
  await Promise.all(replies);
  return latency;
}
