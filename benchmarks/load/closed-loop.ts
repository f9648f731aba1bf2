/**
 * Closed-loop load: `concurrency` callers, each sending its next call the moment its last one is
 * answered, for a fixed time. This keeps exactly `concurrency` calls in flight and measures how
 * many calls per second the server completes and how long each took.
 */
import { performance } from 'node:perf_hooks';
import { LatencyHistogram } from './latency-histogram.js';
import type { LoadClient } from './load-client.js';

export interface CallSpec {
  tool: string;
  args: Record<string, unknown>;
}

export interface ClosedLoopResult {
  latency: LatencyHistogram;
  completed: number;
  /** Calls answered with a JSON-RPC error or an isError result. */
  failed: number;
  callsPerSecond: number;
  /** CPU the load generator itself used, in % of one core: evidence that it was not the bottleneck. */
  clientCpuPercent: number;
  /** The first failure's message, to say what went wrong. */
  firstFailure?: string;
}

export async function closedLoop(
  client: LoadClient,
  call: CallSpec,
  concurrency: number,
  durationMs: number,
): Promise<ClosedLoopResult> {
  const latency = new LatencyHistogram();
  let completed = 0;
  let failed = 0;
  let firstFailure: string | undefined;
  const start = performance.now();
  const cpuAtStart = process.cpuUsage();
  const stopAt = start + durationMs;
  let lastAnswer = start;

  const caller = async () => {
    while (performance.now() < stopAt) {
      const reply = await client.call(call.tool, call.args).reply;
      lastAnswer = performance.now();
      latency.recordMs(reply.latencyMs);
      completed++;
      const problem = reply.error?.message ?? (reply.result?.isError ? errorText(reply.result) : undefined);
      if (problem !== undefined) {
        failed++;
        firstFailure ??= problem;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, caller));
  const cpu = process.cpuUsage(cpuAtStart);
  const elapsedSeconds = (lastAnswer - start) / 1000;
  return {
    latency,
    completed,
    failed,
    callsPerSecond: elapsedSeconds > 0 ? completed / elapsedSeconds : 0,
    clientCpuPercent: elapsedSeconds > 0 ? (cpu.user + cpu.system) / 1e4 / elapsedSeconds : 0,
    ...(firstFailure === undefined ? {} : { firstFailure }),
  };
}

export function errorText(result: Record<string, unknown>): string {
  const content = result.content as { text?: string }[] | undefined;
  return content?.[0]?.text ?? 'isError result';
}

/**
 * One caller alternating between calls (A, B, A, B...) for a fixed time, each into its own
 * histogram. Paired this way, the calls share every moment of machine noise, so the difference
 * between their latencies is the difference between the calls, not between two minutes.
 */
export async function alternatingLoop(
  client: LoadClient,
  calls: readonly CallSpec[],
  durationMs: number,
): Promise<{ latency: LatencyHistogram; failed: number; firstFailure?: string }[]> {
  const results = calls.map(() => ({
    latency: new LatencyHistogram(),
    failed: 0,
    firstFailure: undefined as string | undefined,
  }));
  const stopAt = performance.now() + durationMs;
  for (let turn = 0; performance.now() < stopAt; turn++) {
    const index = turn % calls.length;
    const call = calls[index]!;
    const result = results[index]!;
    const reply = await client.call(call.tool, call.args).reply;
    result.latency.recordMs(reply.latencyMs);
    const problem = reply.error?.message ?? (reply.result?.isError ? errorText(reply.result) : undefined);
    if (problem !== undefined) {
      result.failed++;
      result.firstFailure ??= problem;
    }
  }
  return results;
}
