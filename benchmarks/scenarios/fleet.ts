/**
 * fleet: what running a blocking tool on `weft worker` processes costs next to the server's own
 * pool, on one server process that has both (servers/weft-fleet-server.ts), over raw stdio JSON-RPC.
 * The scenario starts its own throwaway redis-server and its workers, and skips, saying why, when
 * redis-server is not installed.
 * - A trivial blocking call, one in flight, placed on the fleet (one worker) and placed locally,
 *   in alternating windows: p50/p99 of both, and the fleet's extra p50. That gap is the fleet's
 *   round trip: a BullMQ job added, taken by the worker, run on its pool, its result read back
 *   from the queue's event stream.
 * - hash_chain (the CPU tool of cpu-throughput) with a few calls in flight, on one worker
 *   (--threads 1), then on two, each window beside the same calls on the server's local pool.
 * - The books: every call is numbered; calls never answered, answered twice, answered with another
 *   call's value, or run as more than one job (read from BullMQ's completed set) are counted.
 */
import { Redis } from 'ioredis';
import {
  type AccountedCall,
  accountedLoop,
  type Ledger,
  newLedger,
  type SlowCallWatch,
} from '../load/accounted-loop.js';
import { LatencyHistogram } from '../load/latency-histogram.js';
import type { ParamValue } from '../report/measurement.js';
import {
  type HelperProcess,
  redisServerMissing,
  startFleetWorker,
  startThrowawayRedis,
} from '../servers/fleet-processes.js';
import { fleetServerSpec, type ServerId } from '../servers/server-catalog.js';
import type { RunningServer } from '../servers/server-process.js';
import {
  type Budget,
  HEAVY_CALL,
  medians,
  type Scenario,
  type ScenarioContext,
  withServer,
} from './scenario.js';

const QUEUE = 'weft-bench';
const TOOLS_MODULE = new URL('../servers/fleet-tools.js', import.meta.url).pathname;
const HASH_IN_FLIGHT = 4;
const WORKER_COUNTS = [1, 2];
const TRANSPORT = 'stdio';
/** Past the server's own deadline (10 s, servers/weft-fleet-server.ts): a call unanswered by then is lost. */
const ANSWER_TIMEOUT_MS = 15_000;
const SLOW_CALL_MS = 3_000;

const noopRounds = (budget: Budget) => Math.max(budget.repeats, 5);
/** Long enough windows for a p99 of a few hundred calls, summed over the rounds. */
const noopWindowMs = (budget: Budget) => Math.round(budget.windowMs * 2.5);
const hashWindowMs = (budget: Budget) => budget.windowMs * 2;
const stepsOf = (budget: Budget) => 2 * noopRounds(budget) + 2 * WORKER_COUNTS.length * budget.repeats;

type Placement = 'local' | 'fleet';
const PLACEMENTS: readonly Placement[] = ['fleet', 'local'];
const COLUMN: Record<Placement, ServerId> = { local: 'weft', fleet: 'weft-fleet' };
const noopCall = (placement: Placement) => ({
  tool: `noop_${placement}`,
  args: (n: number) => ({ n }),
  expected: (n: number) => String(n),
});
const hashCall = (placement: Placement) => ({
  tool: `hash_chain_${placement}`,
  args: () => HEAVY_CALL.args,
});

export const fleet: Scenario = {
  name: 'fleet',
  quick: true,
  steps: (budget) => stepsOf(budget),
  async run(context) {
    const missing = redisServerMissing();
    if (missing) {
      context.note('weft-fleet', TRANSPORT, missing);
      for (let i = 0; i < stepsOf(context.budget); i++) context.step('fleet skipped');
      return;
    }
    const redis = await startThrowawayRedis();
    const workers: HelperProcess[] = [];
    const addWorker = async () =>
      workers.push(await startFleetWorker(TOOLS_MODULE, { redis: redis.url, queue: QUEUE, threads: 1 }));
    try {
      await addWorker();
      const spec = fleetServerSpec(redis.url, QUEUE);
      const options = { threads: context.cores };
      await withServer(context, spec, TRANSPORT, options, stepsOf(context.budget), (server) =>
        measure(context, server, redis.url, workers, addWorker),
      );
    } finally {
      await Promise.all(workers.map((worker) => worker.stop()));
      await redis.stop(0);
    }
  },
};

async function measure(
  context: ScenarioContext,
  server: RunningServer,
  redisUrl: string,
  workers: readonly HelperProcess[],
  addWorker: () => Promise<unknown>,
): Promise<void> {
  const { budget, cores } = context;
  const { client } = server;
  const books: Record<Placement, Ledger> = { local: newLedger(), fleet: newLedger() };
  const strayBefore = client.strayReplies;
  const probe = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const watch = slowCallWatch(context, probe);
  const load = (
    placement: Placement,
    call: AccountedCall,
    concurrency: number,
    ms: number,
    latency?: LatencyHistogram,
  ) => accountedLoop(client, call, concurrency, ms, latency, books[placement], ANSWER_TIMEOUT_MS, watch);
  try {
    for (const placement of ['fleet', 'local'] as const) {
      await load(placement, noopCall(placement), 1, budget.warmupMs);
      await load(placement, hashCall(placement), HASH_IN_FLIGHT, budget.warmupMs);
    }

    // The trivial call, one in flight: a histogram per placement over all rounds, the order turning.
    const noopLatency = { local: new LatencyHistogram(), fleet: new LatencyHistogram() };
    const noopRates: Record<Placement, number[]> = { local: [], fleet: [] };
    for (let round = 0; round < noopRounds(budget); round++) {
      for (const placement of turnOf(round)) {
        const latency = noopLatency[placement];
        noopRates[placement].push(
          await load(placement, noopCall(placement), 1, noopWindowMs(budget), latency),
        );
        context.step(`fleet noop ${placement}`);
      }
    }
    const noopParams = { tool: 'noop (answers its n)', concurrency: 1, workers: 1 };
    for (const placement of PLACEMENTS) {
      const latency = noopLatency[placement].summary();
      const column = COLUMN[placement];
      const params = { ...noopParams, calls: latency.count };
      context.record(column, TRANSPORT, 'call_p50', latency.p50Ms, 'ms', params);
      context.record(column, TRANSPORT, 'call_p99', latency.p99Ms, 'ms', params);
      context.record(column, TRANSPORT, 'calls_per_s', median(noopRates[placement]), 'calls/s', noopParams);
    }
    const extra = noopLatency.fleet.summary().p50Ms - noopLatency.local.summary().p50Ms;
    context.record('weft-fleet', TRANSPORT, 'fleet_extra_p50', extra, 'ms', {
      ...noopParams,
      note: 'fleet p50 minus local p50',
    });

    // hash_chain with a few calls in flight: on one worker, then two, beside the local pool.
    let fleetSentBeforeSecond = 0;
    for (const count of WORKER_COUNTS) {
      while (workers.length < count) {
        fleetSentBeforeSecond = books.fleet.sent;
        await addWorker();
        await load('fleet', hashCall('fleet'), HASH_IN_FLIGHT, budget.warmupMs);
      }
      const samples: Record<Placement, { rate: number; p50: number }[]> = { local: [], fleet: [] };
      for (let round = 0; round < budget.repeats; round++) {
        for (const placement of turnOf(round)) {
          const latency = new LatencyHistogram();
          const rate = await load(
            placement,
            hashCall(placement),
            HASH_IN_FLIGHT,
            hashWindowMs(budget),
            latency,
          );
          samples[placement].push({ rate, p50: latency.summary().p50Ms });
          context.step(`fleet hash_chain ${placement} workers=${count}`);
        }
      }
      const params: Record<string, ParamValue> = {
        tool: 'hash_chain',
        rounds: HEAVY_CALL.args.rounds,
        concurrency: HASH_IN_FLIGHT,
        workers: count,
        worker_threads: 1,
        local_threads: cores,
      };
      for (const placement of PLACEMENTS) {
        const m = medians(samples[placement]);
        context.record(COLUMN[placement], TRANSPORT, 'calls_per_s', m.rate, 'calls/s', params);
        context.record(COLUMN[placement], TRANSPORT, 'call_p50', m.p50, 'ms', params);
      }
    }
    const stray = client.strayReplies - strayBefore;
    await settleBooks(context, probe, stray, books, workers, fleetSentBeforeSecond);
  } finally {
    probe.disconnect();
  }
  context.note(
    'weft-fleet',
    TRANSPORT,
    `fleet: on this ${cores}-core machine the server, Redis and every worker share the same cores, so the ` +
      'figures show what the fleet costs per call and that no call is lost, not a speed-up: ' +
      'a second worker on its own machine adds its cores, here it only splits the same two.',
  );
}

/** Alternates which placement goes first, so neither always runs right after the other. */
const turnOf = (round: number): readonly Placement[] =>
  round % 2 === 0 ? PLACEMENTS : [...PLACEMENTS].reverse();

/**
 * Calls that take seconds where they should take milliseconds are written down with the queue's
 * state at that moment (a few at most), so a stall can be told apart: jobs waiting that no worker
 * takes, jobs active with a live lock, or jobs finished whose outcome the replica never read.
 */
function slowCallWatch(context: ScenarioContext, redis: Redis): SlowCallWatch {
  let told = 0;
  return {
    afterMs: SLOW_CALL_MS,
    onSlow(tool) {
      if (++told > 3) return;
      void queueState(redis)
        .then((state) =>
          context.note(
            'weft-fleet',
            TRANSPORT,
            `fleet: a ${tool} call still unanswered after ${SLOW_CALL_MS} ms; ${state}`,
          ),
        )
        .catch(() => {});
    },
  };
}

async function queueState(redis: Redis): Promise<string> {
  const key = (name: string) => `bull:${QUEUE}:${name}`;
  const [waiting, active, completed, events] = await Promise.all([
    redis.llen(key('wait')),
    redis.lrange(key('active'), 0, -1),
    redis.zcard(key('completed')),
    redis.xlen(key('events')),
  ]);
  const jobs = await Promise.all(
    active.map(async (id) => {
      const [times, lock] = await Promise.all([
        redis.hmget(key(id), 'processedOn', 'finishedOn'),
        redis.exists(`${key(id)}:lock`),
      ]);
      return `${id} (processedOn ${times[0]}, finishedOn ${times[1]}, lock ${lock ? 'held' : 'none'})`;
    }),
  );
  return `queue: ${waiting} waiting, active [${jobs.join(', ')}], ${completed} completed, ${events} entries in the event stream`;
}

/**
 * Records the books: per placement, the calls never answered, answered with another's value, or
 * failed; for the fleet, answers that arrived twice and calls that ran as more than one BullMQ job,
 * and the share of jobs the second worker took once it was there.
 */
async function settleBooks(
  context: ScenarioContext,
  redis: Redis,
  strayReplies: number,
  books: Record<Placement, Ledger>,
  workers: readonly HelperProcess[],
  fleetSentBeforeSecond: number,
): Promise<void> {
  const jobs = await readFinishedJobs(redis);
  const params = { note: 'every call of the scenario, warm-ups included' };
  for (const placement of PLACEMENTS) {
    const ledger = books[placement];
    const column = COLUMN[placement];
    context.record(column, TRANSPORT, 'calls_sent', ledger.sent, 'calls', params);
    context.record(column, TRANSPORT, 'answers_lost', ledger.lost, 'calls', params);
    context.record(column, TRANSPORT, 'answers_wrong', ledger.wrong, 'calls', params);
    context.record(column, TRANSPORT, 'answers_failed', ledger.failed, 'calls', params);
    if (ledger.failed > 0)
      context.note(column, TRANSPORT, `fleet: ${placement} call failed: ${ledger.firstFailure}`);
  }
  const extraJobs = Math.max(0, jobs.total - books.fleet.sent);
  context.record('weft-fleet', TRANSPORT, 'answers_doubled', strayReplies + extraJobs, 'calls', {
    ...params,
    note: `replies to an answered call (${strayReplies}) + BullMQ jobs beyond the fleet calls sent (${jobs.total} jobs completed or failed)`,
  });
  const second = workers[1];
  const secondPhase = books.fleet.sent - fleetSentBeforeSecond;
  if (second && secondPhase > 0) {
    const share = (jobs.byPid.get(second.pid) ?? 0) / secondPhase;
    context.record('weft-fleet', TRANSPORT, 'second_worker_share', share * 100, '% of jobs', {
      workers: 2,
      note: 'jobs the second worker ran, of the fleet calls made while it served',
    });
  }
}

/** Every job BullMQ finished on the queue (kept for 10 minutes), and how many each worker pid ran. */
async function readFinishedJobs(redis: Redis): Promise<{ total: number; byPid: Map<number, number> }> {
  const [completed, failed] = await Promise.all([
    redis.zrange(`bull:${QUEUE}:completed`, 0, -1),
    redis.zcard(`bull:${QUEUE}:failed`),
  ]);
  const pipeline = redis.pipeline();
  for (const id of completed) pipeline.hget(`bull:${QUEUE}:${id}`, 'returnvalue');
  const byPid = new Map<number, number>();
  for (const [, value] of (await pipeline.exec()) ?? []) {
    const worker = (JSON.parse(String(value)) as { worker?: string }).worker ?? '';
    const pid = Number(worker.slice(worker.lastIndexOf('/') + 1));
    byPid.set(pid, (byPid.get(pid) ?? 0) + 1);
  }
  return { total: completed.length + failed, byPid };
}

function median(values: readonly number[]): number {
  return medians(values.map((value) => ({ value }))).value;
}
