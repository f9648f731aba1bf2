/**
 * The shape every scenario has, and what the runner hands it: the servers, the time budget of this
 * run (quick or full), and ways to record numbers, leave notes and advance the progress bar.
 */
import type { TransportName } from '../load/wire.js';
import type { Measurement, Note, ParamValue } from '../report/measurement.js';
import type { ServerId, ServerSpec } from '../servers/server-catalog.js';
import {
  type RunningServer,
  type StartOptions,
  startServer,
  TransportUnavailable,
} from '../servers/server-process.js';

/** How long things run. Quick runs trade precision for a two-minute total. */
export interface Budget {
  quick: boolean;
  /** Load before measuring, so JIT and pools are warm. */
  warmupMs: number;
  /** One measured window. */
  windowMs: number;
  /** Measured windows per point; the median is reported. */
  repeats: number;
}

export interface ScenarioContext {
  budget: Budget;
  cores: number;
  servers: readonly ServerSpec[];
  record(
    server: ServerId,
    transport: TransportName,
    metric: string,
    value: number,
    unit: string,
    params?: Record<string, ParamValue>,
  ): void;
  note(server: ServerId, transport: TransportName, text: string): void;
  /** Marks one unit of work done (the progress bar counts them). */
  step(label: string): void;
}

export interface Scenario {
  name: string;
  /** Part of `bench:quick`. */
  quick: boolean;
  /** Run only when named (`npm run bench -- <name>`), never as part of a full run. */
  onDemand?: boolean;
  /** Progress units this scenario will report, for the bar's total. */
  steps(budget: Budget, servers: readonly ServerSpec[], cores: number): number;
  run(context: ScenarioContext): Promise<void>;
}

export type { Measurement, Note };

/**
 * Starts `spec` over `transport`, runs `body` against it, and always stops it. A server that cannot
 * serve the transport becomes a note, and its steps are counted as done so the bar stays honest.
 */
export async function withServer(
  context: ScenarioContext,
  spec: ServerSpec,
  transport: TransportName,
  options: StartOptions,
  skippedSteps: number,
  body: (server: RunningServer) => Promise<void>,
): Promise<void> {
  let server: RunningServer;
  try {
    server = await startServer(spec, transport, options);
  } catch (error) {
    if (!(error instanceof TransportUnavailable)) throw error;
    context.note(spec.id, transport, `skipped: ${error.message}`);
    for (let i = 0; i < skippedSteps; i++) context.step(`${spec.label} ${transport} skipped`);
    return;
  }
  try {
    await body(server);
  } finally {
    await server.stop();
  }
}

/**
 * Starts every server in `specs` over `transport` at once, runs `body` against those that came up,
 * and always stops them. Scenarios interleave their measurements across these servers (every
 * server's first repeat, then every server's second...), so that noise from a shared machine,
 * which comes and goes, falls on all servers alike instead of on whichever ran during a bad minute.
 * Idle servers cost nothing while another is measured.
 */
export async function withServers(
  context: ScenarioContext,
  specs: readonly ServerSpec[],
  transport: TransportName,
  options: StartOptions,
  stepsPerServer: number | ((spec: ServerSpec) => number),
  body: (servers: RunningServer[]) => Promise<void>,
): Promise<void> {
  const started: RunningServer[] = [];
  try {
    for (const spec of specs) {
      try {
        started.push(await startServer(spec, transport, options));
      } catch (error) {
        if (!(error instanceof TransportUnavailable)) throw error;
        context.note(spec.id, transport, `skipped: ${error.message}`);
        const steps = typeof stepsPerServer === 'number' ? stepsPerServer : stepsPerServer(spec);
        for (let i = 0; i < steps; i++) context.step(`${spec.label} ${transport} skipped`);
      }
    }
    if (started.length > 0) await body(started);
  } finally {
    await Promise.all(started.map((server) => server.stop()));
  }
}

/**
 * Runs `measure` `repeats` times for every server, interleaved (all servers' first repeat, then
 * all servers' second...), and returns each server's samples in the servers' order.
 */
export async function interleaved<T>(
  servers: readonly RunningServer[],
  repeats: number,
  measure: (server: RunningServer) => Promise<T>,
): Promise<T[][]> {
  const samples: T[][] = servers.map(() => []);
  for (let repeat = 0; repeat < repeats; repeat++) {
    for (const [index, server] of servers.entries()) samples[index]!.push(await measure(server));
  }
  return samples;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The median of each named number across repeated measurements. */
export function medians<K extends string>(samples: readonly Record<K, number>[]): Record<K, number> {
  const first = samples[0];
  if (!first) throw new Error('medians() needs at least one sample');
  const result = {} as Record<K, number>;
  for (const key of Object.keys(first) as K[]) {
    const sorted = samples.map((sample) => sample[key]).sort((a, b) => a - b);
    const middle = Math.floor(sorted.length / 2);
    result[key] = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  }
  return result;
}

/** The CPU-bound call of cpu-throughput: iterated SHA-256, 20,000 rounds (tens of ms per call). */
export const HEAVY_CALL = { tool: 'hash_chain', args: { text: 'weft', rounds: 20_000 } };
export const CHEAP_CALL = { tool: 'echo', args: { text: 'hello' } };
