/**
 * Open-loop probing: one cheap call sent every `intervalMs`, whether or not earlier ones have been
 * answered. A stalled server cannot slow the probe down, so its latencies show the whole stall
 * (no coordinated omission), which is what "responsiveness" means to a client.
 */
import { performance } from 'node:perf_hooks';
import type { CallSpec } from './closed-loop.js';
import { LatencyHistogram } from './latency-histogram.js';
import type { LoadClient, Reply } from './load-client.js';

export function openLoop(
  client: LoadClient,
  call: CallSpec,
  intervalMs: number,
  durationMs: number,
): Promise<LatencyHistogram> {
  return openLoopOf(intervalMs, durationMs, () =>
    client.call(call.tool, call.args).reply.then((reply: Reply) => reply.latencyMs),
  );
}

/**
 * The same probing for any client: `callOnce` sends one call and resolves its latency in ms (it
 * rejects when the call failed, which fails the probe).
 */
export async function openLoopOf(
  intervalMs: number,
  durationMs: number,
  callOnce: () => Promise<number>,
): Promise<LatencyHistogram> {
  const latency = new LatencyHistogram();
  const answers: Promise<void>[] = [];
  const start = performance.now();
  for (let sent = 0; ; sent++) {
    const due = start + sent * intervalMs;
    if (due >= start + durationMs) break;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    answers.push(callOnce().then((ms) => latency.recordMs(ms)));
  }
  await Promise.all(answers);
  return latency;
}
