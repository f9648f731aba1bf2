/**
 * Runs blocking tools on the fleet: `weft worker` processes on any machine that share this
 * server's Redis. BullMQ carries each call as a job; the worker runs it in its own Piscina pool,
 * so a deadline or a cancel still terminates a CPU-bound handler wherever it runs.
 *
 * The replica keeps every promise a local call keeps:
 * - one decision per call (pooled-call.ts): the replica's own timer answers the timeout on time,
 *   counted from admission, so time spent waiting in the fleet queue counts; the job carries the
 *   deadline on the fleet's clock (fleet-clock.ts) so the worker stops the work then too;
 * - a cancel or a timeout is a marker key plus a message to every worker: whichever runs the job
 *   raises its flag and, after the grace, terminates the thread; a waiting job leaves the queue;
 * - a late result is dropped: the call is no longer in `#calls` once its outcome is decided;
 * - a worker that dies is noticed by its lapsed BullMQ lock (checked here every checkIntervalMs,
 *   so it works with a single worker too) or by BullMQ's stalled check: the call ends as panicked,
 *   or runs again if its tool is idempotent and opted in (`fleetRetries`);
 * - Redis unreachable: new calls are refused at once (overloaded: nothing ran) with a message that
 *   names no address (the detail is logged), calls in flight end as panicked, and their jobs are
 *   cancelled once Redis is back.
 *
 * A call made without a book of answers but with a client to ask (the legacy era) has its
 * questions asked here, between attempts, so no worker thread is held while a client thinks.
 * What a job carries and how one is stopped is fleet-job.ts; a call's own state, fleet-call.ts.
 */
import type { RegisteredBlockingTool } from '../tools/registered-tool.js';
import type { Placement } from '../tools/tool-definition.js';
import type { AbandonReason } from './abandon-reason.js';
import type { Admission } from './admission.js';
import {
  askBetweenAttempts,
  decideAfterEvents,
  deliverFleetEvent,
  type FleetCall,
  type FleetToolCall,
  newFleetCall,
} from './fleet-call.js';
import { addJob, cancelJob, jobDataOf } from './fleet-job.js';
import { FleetLink } from './fleet-link.js';
import type { FleetOptions } from './fleet-options.js';
import { type FleetEvent, type FleetJobData, type FleetResult, readFleetResult } from './fleet-protocol.js';
import type { Outcome } from './outcome.js';
import { runPooledCall } from './pooled-call.js';

/** What a client is told when the fleet cannot take its call (-32010); the detail is logged. */
export const FLEET_UNAVAILABLE = 'The fleet is unavailable: nothing ran; retry later.';

export class FleetExecutor {
  readonly #admission: Admission;
  readonly #options: Required<Pick<FleetOptions, 'queue' | 'maxWaiting' | 'placement' | 'checkIntervalMs'>> &
    FleetOptions;
  readonly #logError: (message: string) => void;
  #lastUnavailable = '';
  #lastUnavailableAt = Number.NEGATIVE_INFINITY;
  readonly #calls = new Map<string, FleetCall>();
  #link: FleetLink | undefined;
  #opening: Promise<FleetLink> | undefined;
  #checkTimer: NodeJS.Timeout | undefined;
  /** Jobs abandoned while Redis was unreachable: cancelled once it is back. */
  #cancelWhenBack: string[] = [];
  readonly #pendingWrites = new Set<Promise<unknown>>();
  #nextJob = 1;
  #closed = false;

  constructor(admission: Admission, options: FleetOptions, logError: (message: string) => void) {
    this.#admission = admission;
    this.#options = {
      queue: 'weft',
      maxWaiting: 1_000,
      placement: 'fleet',
      checkIntervalMs: 1_000,
      ...options,
    };
    this.#logError = logError;
  }

  /** Where `tool` runs: its own placement, else the fleet option's. */
  placementOf(tool: RegisteredBlockingTool): Placement {
    return tool.placement ?? this.#options.placement;
  }

  /** Connects to the fleet's Redis (once); rejects, saying why, when it cannot be reached. */
  open(): Promise<FleetLink> {
    this.#opening ??= this.#open();
    return this.#opening;
  }

  async #open(): Promise<FleetLink> {
    const link = new FleetLink(
      { redis: this.#options.redis, queue: this.#options.queue },
      {
        completed: (jobId, value) => this.#onResult(jobId, value),
        failed: (jobId, reason) => this.#onFailed(jobId, reason),
        event: (event) => this.#onEvent(event),
        lost: (why) => this.#onLost(why),
        regained: () => this.#onRegained(),
      },
    );
    try {
      await link.open();
    } catch (error) {
      this.#opening = undefined; // the next call tries again
      throw error;
    }
    this.#link = link;
    this.#checkTimer = setInterval(() => this.#checkWorkers(), this.#options.checkIntervalMs).unref();
    return link;
  }

  run(call: FleetToolCall): Promise<Outcome> {
    return this.#decide(call, (fc) => void this.#send(fc));
  }

  /**
   * Follows a job another replica added, as if this replica had added it: for a task whose replica
   * stopped while its work ran on the fleet. The deadline is the job's own (on the fleet's clock);
   * the outcome comes from the job's result, its failure, or its worker's death.
   */
  async follow(jobId: string, call: Omit<FleetToolCall, 'args' | 'budgetMs'>): Promise<Outcome> {
    const link = await this.open();
    const found = await link.jobState(jobId);
    if (found.state === 'missing')
      return { kind: 'panicked', detail: `the fleet job ${jobId} is no longer in Redis` };
    const data = found.data as FleetJobData;
    const budgetMs =
      data.deadlineAt === undefined ? 0 : Math.max(1, Math.floor(data.deadlineAt - link.clock.now()));
    const followed: FleetToolCall = {
      ...call,
      args: data.args,
      budgetMs,
      ...(data.inputs ? { inputs: data.inputs } : {}),
    };
    return this.#decide(followed, (fc) => {
      fc.jobId = jobId;
      fc.sentAt = Date.now();
      this.#calls.set(jobId, fc);
      // Read again now that the call is registered: an outcome that came in between is not missed.
      this.#readJob(link, jobId, false);
    });
  }

  /** One decision for the call (pooled-call.ts), its work started by `begin`. */
  #decide(call: FleetToolCall, begin: (fc: FleetCall) => void): Promise<Outcome> {
    const startedAt = Date.now();
    let fleetCall: FleetCall | undefined;
    return runPooledCall(this.#admission, call, {
      needsThread: false,
      isClosed: () => this.#closed,
      onDecided: () => {
        if (!fleetCall) return;
        this.#calls.delete(fleetCall.jobId);
        fleetCall.over?.abort();
        fleetCall.release();
      },
      start: (release, decision) => {
        const started = newFleetCall(call, decision, release, startedAt);
        fleetCall = started;
        begin(started);
        return { abandon: (reason) => this.#abandon(started, reason) };
      },
    });
  }

  /** Adds the call's next job; a failure to add decides the call (nothing ran). */
  async #send(fc: FleetCall): Promise<void> {
    const { call, decision } = fc;
    let link: FleetLink;
    try {
      link = await this.open();
    } catch (error) {
      this.#refuseUnavailable(fc, (error as Error)?.message ?? String(error));
      return;
    }
    if (decision.decided) return;
    if (!link.up) {
      this.#refuseUnavailable(fc, link.downReason);
      return;
    }
    const remainingMs = call.budgetMs > 0 ? call.budgetMs - (Date.now() - fc.startedAt) : 0;
    if (call.budgetMs > 0 && remainingMs <= 0) return; // the call's own timer decides it
    const jobId = `${link.router}-${this.#nextJob++}`;
    try {
      if (this.#options.maxWaiting > 0) {
        const waiting = await link.waitingJobs();
        if (waiting >= this.#options.maxWaiting) {
          decision.decide({
            kind: 'overloaded',
            reason: `Server overloaded: ${waiting} jobs are already waiting in the fleet queue "${this.#options.queue}" (fleet.maxWaiting). Retry later, or start more workers.`,
          });
          return;
        }
      }
      if (decision.decided) return;
      fc.jobId = jobId;
      fc.sentAt = Date.now();
      fc.received = 0;
      fc.caughtUp = undefined;
      this.#calls.set(jobId, fc);
      const data = jobDataOf(fc, link, remainingMs);
      call.watch?.job?.(jobId);
      await addJob(link, jobId, data);
      call.onFleetJob?.(jobId); // once the job is in Redis, so whoever follows it finds it
    } catch (error) {
      this.#calls.delete(jobId);
      if (decision.decided) return;
      const message = (error as Error)?.message ?? String(error);
      this.#refuseUnavailable(
        fc,
        `the fleet queue could not take the call (${link.up ? message : link.downReason})`,
      );
    }
  }

  /**
   * Refuses a call the fleet cannot take (overloaded, -32010: nothing ran, a retry may succeed). The
   * client is told only that the fleet is unavailable: the detail names Redis's address and its
   * error, which are the deployment's business, so it goes to the log (once per distinct detail
   * every ten seconds, so an outage under load does not flood it).
   */
  #refuseUnavailable(fc: FleetCall, detail: string): void {
    const now = Date.now();
    if (detail !== this.#lastUnavailable || now - this.#lastUnavailableAt > 10_000) {
      this.#lastUnavailable = detail;
      this.#lastUnavailableAt = now;
      this.#logError(`weft: a call to fleet tool "${fc.call.tool.name}" was refused: ${detail}`);
    }
    fc.decision.decide({ kind: 'overloaded', reason: FLEET_UNAVAILABLE });
  }

  /** Jobs waiting in the fleet queue, as last read (undefined while the fleet is unreachable). */
  async waitingJobs(): Promise<number | undefined> {
    const link = this.#link;
    return link?.up ? link.waitingJobs() : undefined;
  }

  /** The call's outcome was decided as a timeout or a cancel: stop its job wherever it is. */
  #abandon(fc: FleetCall, reason: AbandonReason): void {
    if (fc.jobId === '') return;
    if (reason === 'shutdown' && fc.call.keepOnShutdown) return; // another replica follows it
    const link = this.#link;
    if (!link?.up) {
      this.#cancelWhenBack.push(fc.jobId);
      return;
    }
    this.#cancelJob(link, fc.jobId, reason);
  }

  #cancelJob(link: FleetLink, jobId: string, reason: AbandonReason): void {
    const write = cancelJob(link, jobId, reason);
    this.#pendingWrites.add(write);
    void write.finally(() => this.#pendingWrites.delete(write));
  }

  #onResult(jobId: string, value: unknown): void {
    const fc = this.#calls.get(jobId);
    if (!fc) return; // another replica's job, or a call already decided: dropped
    const result = readFleetResult(value);
    if (!result) {
      this.#workerLost(
        fc,
        `the fleet worker stored a result weft cannot read: ${String(value).slice(0, 200)}`,
      );
      return;
    }
    this.#settle(fc, result);
  }

  #settle(fc: FleetCall, result: FleetResult): void {
    const { outcome } = result;
    fc.call.watch?.ranOn(result.worker);
    if (outcome.kind === 'cancelled') {
      this.#workerLost(fc, `the fleet worker ${result.worker} stopped before the call finished`);
      return;
    }
    if (outcome.kind === 'input-required' && fc.answers !== undefined) {
      this.#calls.delete(fc.jobId);
      void askBetweenAttempts(fc, outcome.questions).then((again) => {
        if (again) void this.#send(fc);
      });
      return;
    }
    const decided: Outcome =
      outcome.kind === 'timeout' ? { kind: 'timeout', limitMs: fc.call.budgetMs } : outcome;
    decideAfterEvents(fc, decided, result.events);
  }

  #onFailed(jobId: string, reason: string): void {
    const fc = this.#calls.get(jobId);
    if (fc) this.#workerLost(fc, `the fleet job failed: ${reason}`);
  }

  #onEvent(event: FleetEvent): void {
    const fc = this.#calls.get(event.jobId);
    if (fc) deliverFleetEvent(fc, event); // else the call is over: late events are dropped
  }

  /** The worker running the call's job died or stopped: run it again if its tool allows, else panic. */
  #workerLost(fc: FleetCall, detail: string): void {
    this.#calls.delete(fc.jobId);
    if (fc.decision.decided) return;
    const { tool } = fc.call;
    if (fc.retries < tool.fleetRetries) {
      fc.retries++;
      this.#logError(
        `weft: fleet job ${fc.jobId} (tool "${tool.name}"): ${detail}; running it again (retry ${fc.retries} of ${tool.fleetRetries}, the tool is idempotent)`,
      );
      void this.#send(fc);
      return;
    }
    this.#logError(`weft: fleet job ${fc.jobId} (tool "${tool.name}"): ${detail}`);
    fc.decision.decide({ kind: 'panicked', detail });
  }

  /**
   * Ends the calls whose worker died (their job runs but its lock lapsed), and reads the outcome of
   * a job seen finished at two checks in a row while its call still waits: its event was missed
   * (the event stream is trimmed, a reconnect raced it), and the outcome is in the job itself.
   */
  #checkWorkers(): void {
    const link = this.#link;
    if (!link?.up || this.#calls.size === 0) return;
    const cutoff = Date.now() - this.#options.checkIntervalMs;
    const watched = [...this.#calls.entries()].filter(([, fc]) => fc.sentAt <= cutoff);
    if (watched.length === 0) return;
    link
      .checkJobs(watched.map(([jobId]) => jobId))
      .then(({ lost, finished }) => {
        for (const [jobId, fc] of watched) {
          if (this.#calls.get(jobId) !== fc) continue;
          const why = lost.get(jobId);
          if (why !== undefined) this.#workerLost(fc, why);
          else if (!finished.has(jobId)) fc.finishedUnheard = false;
          else if (!fc.finishedUnheard) fc.finishedUnheard = true;
          else this.#readJob(link, jobId, true);
        }
      })
      .catch(() => {});
  }

  /** Takes a job's outcome from the job itself, when its event may not come (or came before anyone listened). */
  #readJob(link: FleetLink, jobId: string, eventMissed: boolean): void {
    link
      .jobState(jobId)
      .then((found) => {
        if (eventMissed) {
          this.#logError(
            `weft: fleet job ${jobId} ended but its event never came; read from the job instead`,
          );
        }
        if (found.state === 'finished') this.#onResult(jobId, found.value);
        else if (found.state === 'failed') this.#onFailed(jobId, found.reason);
        else if (found.state === 'missing') this.#onFailed(jobId, 'it is no longer in Redis');
      })
      .catch(() => {});
  }

  #onLost(why: string): void {
    for (const fc of [...this.#calls.values()]) {
      this.#calls.delete(fc.jobId);
      this.#cancelWhenBack.push(fc.jobId);
      fc.decision.decide({
        kind: 'panicked',
        detail: `lost the connection to the fleet while the call ran: ${why}`,
        publicReason: "the server lost its connection to the fleet's Redis while it ran",
      });
    }
  }

  #onRegained(): void {
    const link = this.#link;
    if (!link) return;
    const jobs = this.#cancelWhenBack;
    this.#cancelWhenBack = [];
    for (const jobId of jobs) this.#cancelJob(link, jobId, 'cancelled');
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#checkTimer);
    await Promise.race([
      Promise.allSettled([...this.#pendingWrites]),
      new Promise((resolve) => setTimeout(resolve, 1_000).unref()),
    ]);
    await this.#link?.close();
  }
}
