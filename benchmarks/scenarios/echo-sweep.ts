/**
 * The echo throughput sweep that cheap-throughput, modern-http and modern-http-auth each run: at
 * every concurrency, `echo` in a closed loop on each server in turn (interleaved, `repeats` times),
 * and each server's medians recorded as calls_per_s, call_p50 and call_p99, plus the load
 * generator's own CPU when asked. One implementation, so the three measure, note and name the
 * numbers alike and their tables compare.
 */
import { closedLoop, windowSummary } from '../load/closed-loop.js';
import type { TransportName } from '../load/wire.js';
import type { ServerSpec } from '../servers/server-catalog.js';
import type { RunningServer } from '../servers/server-process.js';
import { CHEAP_CALL, interleaved, medians, type ScenarioContext } from './scenario.js';

export interface EchoSweep {
  concurrency: readonly number[];
  /** One measured window at each concurrency. */
  windowMs: number;
  /** Starts the note a window with failed calls leaves (`<failure>: <first failure>`). */
  failure: string;
  /** The progress bar's label for one window. */
  step: (spec: ServerSpec, concurrency: number) => string;
  /** Also records `load_generator_cpu` (% of a core). */
  loadGeneratorCpu?: boolean;
}

export async function echoSweep(
  context: ScenarioContext,
  servers: readonly RunningServer[],
  transport: TransportName,
  sweep: EchoSweep,
): Promise<void> {
  for (const concurrency of sweep.concurrency) {
    const samples = await interleaved(servers, context.budget.repeats, async ({ client, spec }) => {
      const result = await closedLoop(client, CHEAP_CALL, concurrency, sweep.windowMs);
      if (result.failed > 0) context.note(spec.id, transport, `${sweep.failure}: ${result.firstFailure}`);
      context.step(sweep.step(spec, concurrency));
      return windowSummary(result);
    });
    for (const [index, { spec }] of servers.entries()) {
      const m = medians(samples[index]!);
      const params = { tool: 'echo', concurrency };
      context.record(spec.id, transport, 'calls_per_s', m.rate, 'calls/s', params);
      context.record(spec.id, transport, 'call_p50', m.p50, 'ms', params);
      context.record(spec.id, transport, 'call_p99', m.p99, 'ms', params);
      if (sweep.loadGeneratorCpu)
        context.record(spec.id, transport, 'load_generator_cpu', m.client, '% of a core', params);
    }
  }
}
