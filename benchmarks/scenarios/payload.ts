/**
 * payload: heavy arguments and results. Results of a text (one that JSON writes as it is, and a
 * document's lines, which it must escape) or an image of 1 KiB to 8 MiB, and
 * arguments of the same (a text, and an image as base64), over stdio and HTTP, 8 calls in flight:
 * weft with the tool inline, on a pool thread and in a pool process, against the official SDK
 * (inline) and the SDK + Piscina peer (offloaded). What each costs is the server's CPU per call and
 * per byte, read from /proc per thread around each window (main thread and the rest apart), and
 * each contender's peak resident memory at each size: the server's VmHWM, set back to its current
 * RSS before each window and read after it (so weft's inline, thread and process contenders, which
 * share one server, each have their own peak; a process contender's pool process is not counted).
 *
 * Windows are interleaved and their order turns each round, so a shared machine's noise falls on
 * every contender alike; the ratios weft inline / SDK and weft thread / SDK + Piscina are taken
 * round by round, then their median. On a loaded two-core machine only the ratios mean much.
 */
import { performance } from 'node:perf_hooks';
import { type CallSpec, closedLoop } from '../load/closed-loop.js';
import { peakRssMiB, resetPeakRss } from '../load/process-probe.js';
import { cpuBetween, readThreadCpu } from '../load/thread-cpu.js';
import type { TransportName } from '../load/wire.js';
import type { ServerId } from '../servers/server-catalog.js';
import type { RunningServer } from '../servers/server-process.js';
import { startServer } from '../servers/server-process.js';
import { type Budget, medians, type Scenario, type ScenarioContext, withServers } from './scenario.js';

const KIB = 1024;
const MIB = 1024 * KIB;
const IN_FLIGHT = 8;
/**
 * A window lasts the budget's time or as long as these many calls take at the rate the warm-up
 * saw, whichever is longer, up to MAX_WINDOW_MS; the warm-up likewise has a floor in calls. At
 * 8 MiB a 700 ms window held 5-7 calls, so one full collection landing in it or not moved a
 * contender's CPU per call by a third and a ratio from 0.55 to 1.1 between runs (a longer driver
 * read weft's inline document over HTTP at 46 ms a call against the SDK's 80-86); and a warm-up
 * of 200 ms was two such calls, while a server's first calls at a new size pay for its heap's
 * growth (a fresh server's 100 KiB document on a thread: 38 page faults a call at first, 4 after
 * five seconds).
 */
const MIN_WINDOW_CALLS = 24;
const MIN_WARMUP_CALLS = 16;
const MAX_WINDOW_MS = 4000;
/** Fresh servers measured per contender for the 8 MiB peak, whose median is recorded. */
const FRESH_SAMPLES = 3;

type Kind = 'text result' | 'lines result' | 'image result' | 'text argument' | 'image argument';
type Placement = 'inline' | 'thread' | 'process';

interface Contender {
  server: ServerId;
  placement: Placement;
  label: string;
}

const CONTENDERS: readonly Contender[] = [
  { server: 'weft', placement: 'inline', label: 'weft inline' },
  { server: 'weft', placement: 'thread', label: 'weft thread' },
  { server: 'weft', placement: 'process', label: 'weft process' },
  { server: 'sdk', placement: 'inline', label: 'SDK' },
  { server: 'sdk-piscina', placement: 'thread', label: 'SDK + Piscina' },
];

/** The contenders measured again at the largest size, each in a fresh server of its own. */
const FRESH: readonly string[] = ['weft inline', 'SDK', 'weft thread', 'SDK + Piscina'];
const RESULT_KINDS: readonly Kind[] = ['text result', 'lines result', 'image result'];

/** Each weft placement is compared with the peer that runs the tool the same way. */
const PEER_OF: Record<string, string> = { 'weft inline': 'SDK', 'weft thread': 'SDK + Piscina' };

/**
 * A part of the plan, for runs that look at one point (profiling): WEFT_PAYLOAD_SIZES (KiB, comma
 * separated), WEFT_PAYLOAD_KINDS ("image result,text argument") and WEFT_PAYLOAD_TRANSPORTS.
 */
function narrowed<T>(all: T[], variable: string, parse: (item: string) => T): T[] {
  const given = process.env[variable];
  if (!given) return all;
  return given.split(',').map((item) => parse(item.trim()));
}

const plan = (budget: Budget) => {
  const whole = planFor(budget);
  return {
    sizes: narrowed(whole.sizes, 'WEFT_PAYLOAD_SIZES', (kib) => Number(kib) * KIB),
    kinds: narrowed(whole.kinds, 'WEFT_PAYLOAD_KINDS', (kind) => kind as Kind),
    transports: narrowed(whole.transports, 'WEFT_PAYLOAD_TRANSPORTS', (name) => name as TransportName),
  };
};

const planFor = (budget: Budget) =>
  budget.quick
    ? {
        sizes: [KIB, MIB],
        kinds: ['text result', 'image result', 'text argument'] as Kind[],
        transports: ['stdio'] as TransportName[],
      }
    : {
        sizes: [KIB, 100 * KIB, MIB, 8 * MIB],
        kinds: ['text result', 'lines result', 'image result', 'text argument', 'image argument'] as Kind[],
        transports: ['stdio', 'http'] as TransportName[],
      };

export const payload: Scenario = {
  name: 'payload',
  quick: true,
  steps(budget, servers) {
    const { sizes, kinds, transports } = plan(budget);
    const present = contendersAmong(servers);
    const fresh = freshPlan(sizes, kinds, present);
    return (
      present.length * sizes.length * kinds.length * transports.length * budget.repeats +
      fresh.contenders.length * transports.length * FRESH_SAMPLES
    );
  },
  async run(context) {
    const { sizes, kinds, transports } = plan(context.budget);
    const specs = context.servers.filter((spec) =>
      CONTENDERS.some((contender) => contender.server === spec.id),
    );
    for (const transport of transports) {
      await withServers(
        context,
        specs,
        transport,
        {},
        stepsPerServer(context, sizes, kinds),
        async (running) => {
          for (const size of sizes) {
            const peaks = new Map<Contender, number>();
            for (const kind of kinds) await measurePoint(context, running, transport, size, kind, peaks);
            for (const [contender, peak] of peaks) {
              context.record(contender.server, transport, 'payload peak RSS', peak, 'MiB', {
                bytes: size,
                placement: contender.placement,
              });
            }
          }
        },
      );
    }
    for (const transport of transports) await measureFreshPeaks(context, transport, sizes, kinds);
  },
};

/** The contenders whose server takes part in this run. */
function contendersAmong(servers: readonly { id: ServerId }[]): Contender[] {
  return CONTENDERS.filter((contender) => servers.some((spec) => spec.id === contender.server));
}

/** What the fresh-server peaks cover: the largest size's results, when it is 8 MiB (the full run). */
function freshPlan(sizes: number[], kinds: Kind[], present: readonly Contender[]) {
  const size = Math.max(...sizes);
  const resultKinds = kinds.filter((kind) => RESULT_KINDS.includes(kind));
  const contenders =
    size < 8 * MIB || resultKinds.length === 0
      ? []
      : present.filter((contender) => FRESH.includes(contender.label));
  return { size, resultKinds, contenders };
}

/**
 * Peak RSS at 8 MiB with each contender in a server of its own, started fresh: in the windows
 * above, weft's one server hosts its inline, thread and process contenders, and keeps in its heap
 * what each left there, while each peer serves one. After one warm-up call, the server's VmHWM is
 * set back, then 8 calls stay in flight for a window of each result kind in turn. One such peak
 * moves by +-50 MiB from server to server, so each contender is measured `FRESH_SAMPLES` times,
 * contenders interleaved and their order turned each round, and the median is recorded.
 */
async function measureFreshPeaks(
  context: ScenarioContext,
  transport: TransportName,
  sizes: number[],
  kinds: Kind[],
): Promise<void> {
  const { size, resultKinds, contenders } = freshPlan(sizes, kinds, contendersAmong(context.servers));
  const samples = new Map<Contender, { peak: number }[]>();
  for (let round = 0; round < FRESH_SAMPLES; round++) {
    const order = round % 2 === 0 ? contenders : [...contenders].reverse();
    for (const contender of order) {
      const peak = await freshPeak(context, contender, transport, size, resultKinds);
      context.step(`payload ${transport} fresh ${contender.label}`);
      if (peak === undefined) return;
      samples.set(contender, [...(samples.get(contender) ?? []), { peak }]);
    }
  }
  for (const [contender, peaks] of samples) {
    context.record(contender.server, transport, 'payload fresh-server peak RSS', medians(peaks).peak, 'MiB', {
      bytes: size,
      placement: contender.placement,
      samples: peaks.map((sample) => Math.round(sample.peak)).join(' '),
    });
  }
}

/** One fresh server's peak RSS over a window of each result kind, in MiB (undefined off Linux). */
async function freshPeak(
  context: ScenarioContext,
  contender: Contender,
  transport: TransportName,
  size: number,
  resultKinds: Kind[],
): Promise<number | undefined> {
  const spec = context.servers.find((candidate) => candidate.id === contender.server)!;
  const server = await startServer(spec, transport);
  try {
    const warmUp = callOf(contender, resultKinds[0]!, size, undefined);
    await server.client.call(warmUp.tool, warmUp.args).reply;
    if (!resetPeakRss(server.pid)) return undefined;
    for (const kind of resultKinds) {
      await closedLoop(
        server.client,
        callOf(contender, kind, size, undefined),
        IN_FLIGHT,
        context.budget.windowMs,
      );
    }
    return peakRssMiB(server.pid);
  } finally {
    await server.stop();
  }
}

function stepsPerServer(context: ScenarioContext, sizes: number[], kinds: Kind[]) {
  return (spec: { id: ServerId }) =>
    CONTENDERS.filter((contender) => contender.server === spec.id).length *
    sizes.length *
    kinds.length *
    context.budget.repeats;
}

/**
 * Warms a contender up at a new point (the budget's half warm-up, then more until MIN_WARMUP_CALLS
 * were answered) and returns how long its windows there last.
 */
async function warmUp(server: RunningServer, call: CallSpec, budget: Budget): Promise<number> {
  const started = performance.now();
  let answered = 0;
  let rate = 0;
  for (let spanMs = budget.warmupMs / 2; answered < MIN_WARMUP_CALLS; ) {
    const result = await closedLoop(server.client, call, IN_FLIGHT, spanMs);
    answered += result.completed;
    rate = result.callsPerSecond;
    if (performance.now() - started > MAX_WINDOW_MS || rate === 0) break;
    spanMs = ((MIN_WARMUP_CALLS - answered) / rate) * 1000;
  }
  const forCalls = rate > 0 ? (MIN_WINDOW_CALLS / rate) * 1000 : budget.windowMs;
  return Math.min(MAX_WINDOW_MS, Math.max(budget.windowMs, forCalls));
}

function callOf(contender: Contender, kind: Kind, size: number, argument: string | undefined) {
  const suffix = contender.placement === 'inline' ? '' : `_${contender.placement}`;
  switch (kind) {
    case 'text result':
      return { tool: `payload_text${suffix}`, args: { bytes: size } };
    case 'lines result':
      return { tool: `payload_lines${suffix}`, args: { bytes: size } };
    case 'image result':
      return { tool: `payload_image${suffix}`, args: { bytes: size } };
    case 'text argument':
      return { tool: `payload_arg_text${suffix}`, args: { data: argument! } };
    case 'image argument':
      return { tool: `payload_arg_image${suffix}`, args: { data: argument! } };
  }
}

async function measurePoint(
  context: ScenarioContext,
  running: RunningServer[],
  transport: TransportName,
  size: number,
  kind: Kind,
  peaks: Map<Contender, number>,
): Promise<void> {
  const { budget } = context;
  const argument =
    kind === 'text argument'
      ? 'x'.repeat(size)
      : kind === 'image argument'
        ? Buffer.alloc(size, 7).toString('base64')
        : undefined;
  const present = CONTENDERS.flatMap((contender) => {
    const server = running.find((candidate) => candidate.spec.id === contender.server);
    return server ? [{ contender, server, call: callOf(contender, kind, size, argument) }] : [];
  });
  const samples = new Map<string, { cpu: number; main: number; rate: number }[]>();
  const windowMs = new Map<Contender, number>();
  for (let round = 0; round < budget.repeats; round++) {
    const order = round % 2 === 0 ? present : [...present].reverse();
    for (const { contender, server, call } of order) {
      if (round === 0) windowMs.set(contender, await warmUp(server, call, budget));
      const peakKnown = resetPeakRss(server.pid);
      const before = readThreadCpu(server.pid);
      const result = await closedLoop(server.client, call, IN_FLIGHT, windowMs.get(contender)!);
      const after = readThreadCpu(server.pid);
      const peak = peakKnown ? peakRssMiB(server.pid) : undefined;
      if (peak !== undefined) peaks.set(contender, Math.max(peaks.get(contender) ?? 0, peak));
      context.step(`payload ${transport} ${kind} ${size} B ${contender.label}`);
      if (result.failed > 0) {
        context.note(
          server.spec.id,
          transport,
          `payload ${kind} ${size} B (${contender.label}): ${result.firstFailure}`,
        );
      }
      if (!before || !after || result.completed === 0) continue;
      const cpu = cpuBetween(before, after);
      const list = samples.get(contender.label) ?? [];
      list.push({
        cpu: ((cpu.main + cpu.others) / result.completed) * 1e6,
        main: (cpu.main / result.completed) * 1e6,
        rate: result.callsPerSecond,
      });
      samples.set(contender.label, list);
    }
  }
  const params = { kind, bytes: size };
  for (const { contender, server } of present) {
    const list = samples.get(contender.label);
    if (!list || list.length === 0) continue;
    const median = medians(list);
    const at = { ...params, placement: contender.placement };
    context.record(server.spec.id, transport, 'payload CPU per call', median.cpu, 'µs', at);
    context.record(server.spec.id, transport, 'payload main-thread CPU per call', median.main, 'µs', at);
    context.record(server.spec.id, transport, 'payload CPU per byte', (median.cpu * 1000) / size, 'ns/B', at);
    context.record(server.spec.id, transport, 'payload calls/s', median.rate, 'calls/s', at);
    const peer = PEER_OF[contender.label];
    const theirs = peer === undefined ? undefined : samples.get(peer);
    if (theirs && theirs.length === list.length) {
      const ratios = list.map((sample, index) => ({ ratio: sample.cpu / theirs[index]!.cpu }));
      context.record(
        server.spec.id,
        transport,
        `payload CPU per call / ${peer}`,
        medians(ratios).ratio,
        'x',
        at,
      );
    }
  }
}
