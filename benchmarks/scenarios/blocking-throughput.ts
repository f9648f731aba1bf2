/**
 * blocking-throughput: trivial blocking calls (`noop_blocking`, a noop on the pool) kept in flight
 * over raw stdio JSON-RPC, at 1, 8 and 64 in flight, for every server with a pool (weft and the
 * SDK + Piscina peer). dispatch-overhead sees one call at a time; this is what a pool path costs
 * when calls pile up, where per-call allocations, timers and thread wake-ups add up.
 *
 * Beside them runs a bare Piscina pool of the same size with no MCP around it
 * (servers/bare-piscina-floor.ts): the rate at which this machine, in this run, hands trivial tasks
 * to Piscina at all. No server can beat it; the gap between it and a server is the server's cost.
 * Windows are interleaved (every server's first window, the floor's, then every second...), so the
 * shared machine's noise falls on all of them alike.
 *
 * Calls/s on two cores is bounded by the load generator as much as by the server (what the server
 * saves, the generator takes), so beside it each window reports the server's CPU per call, read
 * from /proc per thread: its main thread's µs per call and its other threads' (the pool) apart.
 */
import { type BarePiscina, startBarePiscina } from '../load/bare-piscina-driver.js';
import { closedLoop, windowSummary } from '../load/closed-loop.js';
import { cpuBetween, readThreadCpu } from '../load/thread-cpu.js';
import type { ServerId } from '../servers/server-catalog.js';
import type { RunningServer } from '../servers/server-process.js';
import { type Budget, medians, type Scenario, withServers } from './scenario.js';

export const BLOCKING_CONCURRENCY = [1, 8, 64];

export const blockingThroughput: Scenario = {
  name: 'blocking-throughput',
  quick: true,
  steps: (budget, servers) =>
    (servers.filter((spec) => spec.blockingNoop).length + 1) * BLOCKING_CONCURRENCY.length * roundsOf(budget),
  async run(context) {
    const { budget } = context;
    const pooled = context.servers.filter((spec) => spec.blockingNoop);
    const stepsPerServer = BLOCKING_CONCURRENCY.length * roundsOf(budget);
    await withServers(context, pooled, 'stdio', {}, stepsPerServer, async (servers) => {
      const floor = await startBarePiscina();
      try {
        await measureAll(context, servers, floor);
      } finally {
        await floor.stop();
      }
    });
  },
};

/** One window: a server's client (or the floor) at `concurrency` for `ms`. */
interface Contender {
  id: ServerId;
  label: string;
  measure(concurrency: number, ms: number): Promise<Window>;
}

interface Window {
  rate: number;
  /** Server CPU µs per call on its main thread, and on all its other threads, when /proc says. */
  mainUs?: number;
  othersUs?: number;
  p50?: number;
  p99?: number;
  client?: number;
}

/** The peer every ratio is taken against, when it runs. */
const PEER: ServerId = 'sdk-piscina';

async function measureAll(
  context: Parameters<Scenario['run']>[0],
  servers: readonly RunningServer[],
  floor: BarePiscina,
): Promise<void> {
  const { budget } = context;
  const contenders: Contender[] = [
    ...servers.map(
      (server): Contender => ({
        id: server.spec.id,
        label: server.spec.label,
        async measure(concurrency, ms) {
          const call = { tool: server.spec.blockingNoop!, args: {} };
          const before = readThreadCpu(server.pid);
          const result = await closedLoop(server.client, call, concurrency, ms);
          const after = readThreadCpu(server.pid);
          if (result.failed > 0)
            context.note(server.spec.id, 'stdio', `blocking-throughput: ${result.firstFailure}`);
          return { ...windowSummary(result), ...perCall(before, after, result.completed) };
        },
      }),
    ),
    {
      id: 'bare-piscina',
      label: 'bare Piscina',
      async measure(concurrency, ms) {
        const before = readThreadCpu(floor.pid);
        const { rate, tasks } = await floor.measure(concurrency, ms);
        return { rate, ...perCall(before, readThreadCpu(floor.pid), tasks) };
      },
    },
  ];
  // Every path optimised (and every pool thread started) before anything is counted.
  for (const contender of contenders) await contender.measure(16, budget.warmupMs * 2);
  const rounds = roundsOf(budget);
  for (const concurrency of BLOCKING_CONCURRENCY) {
    const windows: Window[][] = contenders.map(() => []);
    for (let round = 0; round < rounds; round++) {
      // The order turns each round, so no one always runs right after the floor has kept both
      // cores busy, or always first after a pause.
      for (let turn = 0; turn < contenders.length; turn++) {
        const index = (round + turn) % contenders.length;
        const contender = contenders[index]!;
        windows[index]!.push(await contender.measure(concurrency, budget.windowMs));
        context.step(`blocking-throughput ${contender.label} c=${concurrency}`);
      }
    }
    recordPoint(context, contenders, windows, concurrency);
  }
}

/** CPU µs per call between two reads of a process's threads. */
function perCall(
  before: ReturnType<typeof readThreadCpu>,
  after: ReturnType<typeof readThreadCpu>,
  calls: number,
): { mainUs?: number; othersUs?: number } {
  if (!before || !after || calls === 0) return {};
  const { main, others } = cpuBetween(before, after);
  return { mainUs: (main * 1e6) / calls, othersUs: (others * 1e6) / calls };
}

/**
 * More, and so shorter-lived, rounds than the other scenarios: the windows are short, and the
 * ratio to the peer is taken round by round, where both saw the same minute of the machine.
 */
export const roundsOf = (budget: Budget) => Math.max(budget.repeats, 5);

function recordPoint(
  context: Parameters<Scenario['run']>[0],
  contenders: readonly Contender[],
  windows: readonly Window[][],
  concurrency: number,
): void {
  const params = { tool: 'noop_blocking', concurrency };
  const peerIndex = contenders.findIndex((contender) => contender.id === PEER);
  for (const [index, contender] of contenders.entries()) {
    const own = windows[index]!;
    const id = contender.id;
    const extra: Record<string, string> =
      id === 'bare-piscina' ? { note: 'noop tasks in process, no MCP' } : {};
    context.record(id, 'stdio', 'calls_per_s', median(own.map((w) => w.rate)), 'calls/s', {
      ...params,
      ...extra,
    });
    if (own[0]?.mainUs !== undefined) {
      const cpu = { ...params, note: 'server CPU from /proc, per call' };
      const main = median(own.map((w) => w.mainUs!));
      const others = median(own.map((w) => w.othersUs!));
      const total = median(own.map((w) => w.mainUs! + w.othersUs!));
      context.record(id, 'stdio', 'cpu_us_per_call', total, 'µs', cpu);
      context.record(id, 'stdio', 'main_thread_us_per_call', main, 'µs', cpu);
      context.record(id, 'stdio', 'other_threads_us_per_call', others, 'µs', cpu);
    }
    if (own[0]?.p50 !== undefined) {
      context.record(id, 'stdio', 'call_p50', median(own.map((w) => w.p50!)), 'ms', params);
      context.record(id, 'stdio', 'call_p99', median(own.map((w) => w.p99!)), 'ms', params);
      context.record(
        id,
        'stdio',
        'load_generator_cpu',
        median(own.map((w) => w.client!)),
        '% of a core',
        params,
      );
    }
    if (peerIndex >= 0 && index !== peerIndex) {
      const peer = windows[peerIndex]!;
      const ratios = own.map((w, round) => w.rate / peer[round]!.rate);
      context.record(id, 'stdio', 'rate_over_sdk_piscina', median(ratios), 'x', {
        ...params,
        note: "median of the rounds' ratios",
      });
      if (own[0]?.mainUs !== undefined && peer[0]?.mainUs !== undefined) {
        const cpuRatios = own.map(
          (w, round) => (w.mainUs! + w.othersUs!) / (peer[round]!.mainUs! + peer[round]!.othersUs!),
        );
        context.record(id, 'stdio', 'cpu_per_call_over_sdk_piscina', median(cpuRatios), 'x', {
          ...params,
          note: "median of the rounds' ratios",
        });
      }
    }
  }
}

function median(values: readonly number[]): number {
  return medians(values.map((value) => ({ value }))).value;
}
