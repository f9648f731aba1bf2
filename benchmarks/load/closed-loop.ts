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

/** What a scenario keeps of one window: its rate, latency percentiles and the generator's CPU. */
export interface WindowSummary {
  rate: number;
  p50: number;
  p99: number;
  /** The load generator's own CPU, % of one core. */
  client: number;
}

export function windowSummary(result: ClosedLoopResult): WindowSummary {
  const latency = result.latency.summary();
  return {
    rate: result.callsPerSecond,
    p50: latency.p50Ms,
    p99: latency.p99Ms,
    client: result.clientCpuPercent,
  };
}

export function errorText(result: Record<string, unknown>): string {
  const content = result.content as { text?: string }[] | undefined;
  return content?.[0]?.text ?? 'isError result';
}

/**
 * One caller alternating between calls in short blocks (A for `blockMs`, then B, then A...) for a
 * fixed time, each call into its own histogram. Both calls then share the machine's noise, which
 * comes and goes over seconds, while each block still runs one call back to back, as a client would
 * (alternating call by call would measure how each disturbs the other instead).
 */
export async function alternatingLoop(
  client: LoadClient,
  calls: readonly CallSpec[],
  durationMs: number,
  blockMs = 50,
): Promise<{ latency: LatencyHistogram; completed: number; failed: number; firstFailure?: string }[]> {
  const results = calls.map(() => ({
    latency: new LatencyHistogram(),
    completed: 0,
    failed: 0,
    firstFailure: undefined as string | undefined,
  }));
  const start = performance.now();
  const stopAt = start + durationMs;
  for (let now = start; now < stopAt; now = performance.now()) {
    const index = Math.floor((now - start) / blockMs) % calls.length;
    const call = calls[index]!;
    const result = results[index]!;
    const reply = await client.call(call.tool, call.args).reply;
    result.latency.recordMs(reply.latencyMs);
    result.completed++;
    const problem = reply.error?.message ?? (reply.result?.isError ? errorText(reply.result) : undefined);
    if (problem !== undefined) {
      result.failed++;
      result.firstFailure ??= problem;
    }
  }
  return results;
}
