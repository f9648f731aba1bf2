/**
 * A 1,000-call storm on two routers and two workers, 50 calls in flight from eight legacy sessions
 * (four per router), spoken raw so every JSON-RPC message of every response is counted by request
 * id: each call that was not cancelled is answered exactly once with a worker's pid (0 lost,
 * 0 doubled). One call in ten is cancelled by its client (`notifications/cancelled`) 5 to 30 ms
 * after the replica took it. Half of those are as short as the rest, so a cancel may come too late
 * and the answer is then allowed, once. The other half ask for 2 s of work, so their cancel always
 * lands long before the work could end: they must get no result, and a cancel that failed to stop
 * its job would leave a worker busy after the storm, which the idle check would see.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { redisMissing } from '../support/redis-server.js';
import { RawLegacySession, type Wire } from './fleet-clients.js';
import { FleetCluster, idleAfter } from './fleet-cluster.js';

const CALLS = 1_000;
const IN_FLIGHT = 50;
const SESSIONS_PER_ROUTER = 4;
const CANCELLED_WORK_MS = 2_000;
/** How long a cancelled call's stream is read before the test stops waiting for a stray answer. */
const CANCELLED_READ_MS = CANCELLED_WORK_MS + 1_000;

const isCancelled = (id: number) => id % 10 === 0;
/** Cancelled calls whose work outlasts their cancel by far: they must never be answered. */
const isLongCancelled = (id: number) => id % 20 === 0;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('fleet storm: 1,000 calls, 10% cancelled', { skip: redisMissing() }, () => {
  let cluster: FleetCluster;
  let sessions: RawLegacySession[] = [];

  before(async () => {
    cluster = await FleetCluster.start({ routers: 2, workers: 2 });
    sessions = await Promise.all(
      cluster.routers.flatMap((router) =>
        Array.from({ length: SESSIONS_PER_ROUTER }, () => RawLegacySession.open(router.url)),
      ),
    );
  });

  after(async () => {
    await Promise.allSettled(sessions.map((session) => session.close()));
    await cluster?.stop();
  });

  /** One call: a cancelled one is cancelled 5 to 30 ms after the replica took it. */
  async function one(id: number): Promise<Wire[]> {
    const session = sessions[id % sessions.length]!;
    const ms = isLongCancelled(id) ? CANCELLED_WORK_MS : id % 6;
    if (!isCancelled(id)) return session.call(id, 'whoami', { ms });
    const stopReading = AbortSignal.timeout(CANCELLED_READ_MS);
    let cancel: Promise<void> | undefined;
    const messages = await session.call(
      id,
      'whoami',
      { ms },
      {
        signal: stopReading,
        onSent: () => {
          cancel = sleep(5 + (id % 26)).then(() => session.cancel(id));
        },
      },
    );
    await cancel;
    return messages;
  }

  it('answers every call not cancelled exactly once, none lost, none doubled; long cancelled ones get no result', async (t) => {
    const answers = new Map<number, Wire[]>();
    const started = Date.now();
    let next = 1;
    const lane = async () => {
      while (next <= CALLS) {
        const id = next++;
        for (const message of await one(id)) {
          if (!('id' in message) || 'method' in message) continue; // notifications, requests
          const list = answers.get(message.id) ?? [];
          list.push(message);
          answers.set(message.id, list);
        }
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
    const stormMs = Date.now() - started;
    const endedAt = Date.now();

    const workerPids = new Set(cluster.workers.map((worker) => String(worker.pid)));
    const lost: number[] = [];
    const doubled: number[] = [];
    const wrong: string[] = [];
    const answeredCancelled: number[] = [];
    let shortCancelledAnswered = 0;
    const servedBy = new Map<string, number>();
    for (let id = 1; id <= CALLS; id++) {
      const got = answers.get(id) ?? [];
      if (isCancelled(id)) {
        const answered = got.some((message) => 'result' in message);
        if (answered && isLongCancelled(id)) answeredCancelled.push(id);
        if (answered && !isLongCancelled(id)) shortCancelledAnswered++;
        if (got.length > 1) doubled.push(id);
        continue;
      }
      if (got.length === 0) lost.push(id);
      if (got.length > 1) doubled.push(id);
      const text = got[0]?.result?.content?.[0]?.text;
      if (got.length > 0 && !workerPids.has(text)) wrong.push(`${id}: ${JSON.stringify(got[0])}`);
      if (text) servedBy.set(text, (servedBy.get(text) ?? 0) + 1);
    }
    const strays = [...answers.keys()].filter((id) => !(id >= 1 && id <= CALLS));
    t.diagnostic(
      `storm of ${CALLS} took ${stormMs} ms; served by ${JSON.stringify(Object.fromEntries(servedBy))}; ` +
        `${shortCancelledAnswered} of ${CALLS / 20} short cancelled calls answered before their cancel`,
    );
    assert.deepEqual(lost, [], 'lost answers');
    assert.deepEqual(doubled, [], 'doubled answers');
    assert.deepEqual(wrong.slice(0, 5), [], `answers that are not a worker's pid (${wrong.length})`);
    assert.deepEqual(answeredCancelled, [], 'long cancelled calls that got a result');
    assert.deepEqual(strays, [], 'answers under ids nobody sent');
    assert.equal(servedBy.size, 2, 'both workers served the storm');

    const reading = await idleAfter(cluster.pids, endedAt, { withinMs: 1_000 });
    t.diagnostic(`after the storm: ${JSON.stringify(reading)}`);
    assert.ok(
      reading.quietAfterMs !== undefined,
      `every process quiet within 1 s: ${JSON.stringify(reading)}`,
    );
    assert.ok(
      reading.confirm.every((ticks) => ticks < 15),
      `and stays quiet: ${reading.confirm}`,
    );
  });
});
