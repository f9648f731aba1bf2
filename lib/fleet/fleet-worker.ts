/**
 * What `weft worker` runs: a BullMQ worker that takes fleet jobs and runs each on this machine's
 * own engine (Piscina threads, or pool processes for `isolation: 'process'`), with the semantics
 * a local call has: the cancel flag, the grace, termination, slots busy until a terminated thread
 * has exited, resourceLimits and env.
 *
 * Why the pieces are arranged so:
 * - BullMQ's concurrency is the number of thread slots, and a job is not handed back to BullMQ
 *   until its slot is really free again, so a worker never takes a job it cannot start at once
 *   (another worker with a free slot gets it instead).
 * - A cancel comes by pub/sub to every worker, and as a marker key. The job is registered as
 *   running before the marker is read, so a cancel is either seen in the marker or heard on the
 *   channel, never missed in between.
 * - The deadline arrives as a time on the fleet's clock (Redis TIME), so this machine's clock
 *   need not agree with the replica's.
 * - Redis lost: the running calls are stopped (the replicas that made them have failed them and
 *   nobody could read their results); BullMQ reconnects and the worker takes jobs again.
 *
 * What a job's call reaches beyond the engine here (its events, its peer, its storable outcome)
 * is job-call-edges.ts.
 */

import { hostname } from 'node:os';
import type { Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { makePrincipal } from '../auth/principal.js';
import { Cancellation } from '../engine/cancellation.js';
import { Engine } from '../engine/engine.js';
import { FleetClock } from '../engine/fleet-clock.js';
import { checkQueueName } from '../engine/fleet-options.js';
import {
  FLEET_WIRE_VERSION,
  type FleetCancel,
  type FleetJobData,
  FleetKeys,
  type FleetOutcome,
  type FleetResult,
  toolDigest,
} from '../engine/fleet-protocol.js';
import { loadBullmq, loadIoredis } from '../optional-peers.js';
import { checkRedisUrl, redactedUrl } from '../redis-url.js';
import { JobTelemetry } from '../telemetry/job-telemetry.js';
import type { RegisteredBlockingTool, RegisteredTool } from '../tools/registered-tool.js';
import { fleetPeer, jobEvents, type PublishedEvents, storableOutcome } from './job-call-edges.js';

export interface FleetWorkerOptions {
  redis: string;
  /** The queue the servers send to (default `weft`). */
  queue?: string;
  /** Pool threads, which is also how many jobs run at once (default 2). */
  threads?: number;
  /** How long a cooperative handler gets to stop before its thread is terminated (default 200). */
  graceMs?: number;
  /** Nice increment of the pool threads (default 0: on a worker machine the tools are the point). */
  niceIncrement?: number;
  /**
   * BullMQ's lock duration (default 5,000 ms): a worker that dies is noticed this long after its
   * last lock renewal at most, and its calls end as panicked.
   */
  lockMs?: number;
  logError?: (message: string) => void;
}

interface RunningJob extends PublishedEvents {
  readonly tool: string;
  readonly cancellation: Cancellation;
  /** What the job is doing now, for the overdue report. */
  stage: string;
  /** Local time by which the job should have ended (its deadline, or its cancel, plus the grace). */
  stopBy: number | undefined;
  reported: boolean;
}

/** How often running jobs are looked at for ones that outlived their deadline or their cancel. */
const OVERDUE_CHECK_MS = 5_000;
/** How long after the grace closing waits for BullMQ before the connections are cut anyway. */
const CLOSE_WAIT_MS = 2_000;
/** Slack past deadline + grace before a job counts as overdue (a terminated thread takes a moment). */
const OVERDUE_SLACK_MS = 5_000;

/** How long a finished job waits for its terminated thread to exit before it gives the slot back anyway. */
const SLOT_WAIT_MS = 10_000;

export class FleetWorker {
  readonly #tools = new Map<string, RegisteredBlockingTool>();
  readonly #options: Required<Omit<FleetWorkerOptions, 'logError'>>;
  readonly #logError: (message: string) => void;
  readonly #keys: FleetKeys;
  readonly #engine: Engine;
  /** OpenTelemetry, when this process registered a provider (see job-telemetry.ts). */
  readonly #telemetry: JobTelemetry | undefined;
  readonly #commands: Redis;
  readonly #subscriber: Redis;
  readonly #clock: FleetClock;
  readonly #running = new Map<string, RunningJob>();
  readonly #name = `${hostname()}/${process.pid}`;
  #worker: Worker | undefined;
  #workerConnection: Redis | undefined;
  #closing = false;
  #lastError: Error | undefined;
  #overdueTimer: NodeJS.Timeout | undefined;

  constructor(tools: readonly RegisteredTool[], options: FleetWorkerOptions) {
    checkRedisUrl(options.redis, 'weft worker: --redis');
    checkQueueName(options.queue, 'weft worker: --queue');
    for (const [key, value] of Object.entries({ threads: options.threads, lockMs: options.lockMs })) {
      if (value !== undefined && !(Number.isInteger(value) && value > 0)) {
        throw new TypeError(`weft worker: ${key} must be a positive whole number, got ${value}`);
      }
    }
    this.#options = {
      redis: options.redis,
      queue: options.queue ?? 'weft',
      threads: options.threads ?? 2,
      graceMs: options.graceMs ?? 200,
      niceIncrement: options.niceIncrement ?? 0,
      lockMs: options.lockMs ?? 5_000,
    };
    this.#logError = options.logError ?? ((message) => process.stderr.write(`${message}\n`));
    for (const tool of tools) if (tool.blocking) this.#tools.set(tool.name, tool);
    if (this.#tools.size === 0) {
      throw new TypeError(
        'weft worker: the module registers no blocking tool; a fleet worker runs blocking tools only',
      );
    }
    this.#keys = new FleetKeys(this.#options.queue);
    this.#telemetry = JobTelemetry.create(() => this.#options.threads - this.#engine.freeThreads);
    this.#engine = new Engine({
      maxThreads: this.#options.threads,
      maxQueue: this.#options.threads * 4,
      graceMs: this.#options.graceMs,
      niceIncrement: this.#options.niceIncrement,
      ...(this.#telemetry ? { observer: this.#telemetry.calls } : {}),
      logError: this.#logError,
    });
    this.#commands = new (loadIoredis('weft worker').Redis)(this.#options.redis, {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
    });
    this.#subscriber = new (loadIoredis('weft worker').Redis)(this.#options.redis, {
      lazyConnect: true,
      maxRetriesPerRequest: null,
    });
    this.#clock = new FleetClock(this.#commands);
    // ioredis reconnects by itself; the last error only says why, when starting fails.
    const remember = (error: Error) => {
      this.#lastError = error;
    };
    this.#commands.on('error', remember);
    this.#subscriber.on('error', remember);
  }

  /** The tools this worker runs, by name. */
  get toolNames(): string[] {
    return [...this.#tools.keys()].sort();
  }

  get threads(): number {
    return this.#options.threads;
  }

  get runningCount(): number {
    return this.#running.size;
  }

  async start(): Promise<void> {
    const { Worker } = await loadBullmq('weft worker');
    try {
      await Promise.all([this.#commands.connect(), this.#subscriber.connect()]);
      await this.#clock.start();
      await this.#subscriber.subscribe(this.#keys.cancelChannel);
    } catch (error) {
      await this.close();
      throw new Error(
        `weft worker: cannot reach Redis at ${redactedUrl(this.#options.redis)}: ${this.#lastError?.message ?? (error as Error).message}; start Redis, or fix --redis`,
      );
    }
    this.#subscriber.on('message', (_channel: string, text: string) => this.#onCancel(text));
    this.#commands.on('close', () => {
      if (this.#closing) return;
      for (const running of this.#running.values()) running.cancellation.cancel('shutdown');
    });
    // Jobs are taken once the pool's threads are up, as a server opens its doors (server.ts): until
    // then the main thread is busy with them, and a job taken then would start late on its deadline.
    await this.#engine.warmUp([...this.#tools.values()]);
    // BullMQ leaves a connection it was handed open when it closes: close() disconnects it.
    this.#workerConnection = this.#commands.duplicate({ maxRetriesPerRequest: null, lazyConnect: false });
    const lockMs = this.#options.lockMs;
    this.#worker = new Worker(this.#keys.queue, (job: Job) => this.#process(job), {
      connection: this.#workerConnection,
      concurrency: this.#options.threads,
      name: this.#name,
      lockDuration: lockMs,
      stalledInterval: Math.max(500, Math.floor(lockMs / 2)),
      // A stalled job (its worker died) fails instead of running again: a call runs at most once
      // unless its tool opted in to retries, which the replica that made it decides.
      maxStalledCount: 0,
      drainDelay: 1,
    });
    // While Redis is away BullMQ reports every reconnect attempt: one line per outage is enough.
    let lastLogged = '';
    this.#worker.on('error', (error: Error) => {
      if (this.#closing || error.message === lastLogged) return;
      lastLogged = error.message;
      this.#logError(`weft worker: ${error.message}`);
    });
    this.#worker.on('ready', () => {
      lastLogged = '';
    });
    await this.#worker.waitUntilReady();
    this.#overdueTimer = setInterval(() => this.#reportOverdue(), OVERDUE_CHECK_MS).unref();
  }

  /**
   * Logs, once per job, a job still here well after its deadline or its cancel should have ended
   * it, and what it is doing: such a job holds one of BullMQ's slots, and this says where it hangs.
   */
  #reportOverdue(): void {
    const now = Date.now();
    for (const [jobId, running] of this.#running) {
      if (running.reported || running.stopBy === undefined || now < running.stopBy) continue;
      running.reported = true;
      this.#logError(
        `weft worker: job ${jobId} (tool "${running.tool}") is still ${running.stage} ${now - running.stopBy + OVERDUE_SLACK_MS} ms after its deadline or cancel should have ended it`,
      );
    }
  }

  /**
   * Stops taking jobs and waits for the running ones; past `graceMs` they are stopped (their
   * calls end as panicked on the replica: the worker went away under them).
   */
  async close(graceMs = 5_000): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    const worker = this.#worker;
    const stopRunning = setTimeout(() => {
      for (const running of this.#running.values()) running.cancellation.cancel('shutdown');
    }, graceMs);
    // BullMQ's close waits for Redis to answer; with Redis away it never does. Past the grace
    // (running calls are stopped by then) and a moment for their ends to be written, go on.
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([
      worker?.close().catch(() => {}),
      new Promise((resolve) => {
        waited = setTimeout(resolve, graceMs + CLOSE_WAIT_MS);
      }),
    ]);
    clearTimeout(waited);
    clearTimeout(stopRunning);
    clearInterval(this.#overdueTimer);
    this.#clock.stop();
    await this.#engine.close();
    this.#commands.disconnect();
    this.#subscriber.disconnect();
    this.#workerConnection?.disconnect();
  }

  #onCancel(text: string): void {
    let cancel: FleetCancel;
    try {
      cancel = JSON.parse(text) as FleetCancel;
    } catch {
      return;
    }
    this.#running
      .get(cancel.jobId)
      ?.cancellation.cancel(cancel.reason === 'shutdown' ? 'shutdown' : 'cancelled');
  }

  async #process(job: Job): Promise<FleetResult> {
    const jobId = job.id ?? '';
    const data = job.data as FleetJobData;
    const running: RunningJob = {
      tool: String(data?.tool),
      cancellation: new Cancellation(),
      events: 0,
      lastPublish: Promise.resolve(),
      stage: 'reading its abandoned marker',
      stopBy: undefined,
      reported: false,
    };
    running.cancellation.onCancel(() => {
      const by = Date.now() + this.#options.graceMs + OVERDUE_SLACK_MS;
      running.stopBy = Math.min(running.stopBy ?? by, by);
    });
    this.#running.set(jobId, running);
    try {
      const outcome = await this.#run(jobId, data, running);
      running.stage = 'publishing its last events';
      await running.lastPublish.catch(() => {});
      return { outcome, events: running.events, worker: this.#name };
    } finally {
      running.stage = 'waiting for its terminated thread to exit';
      await this.#slotFree();
      this.#running.delete(jobId);
    }
  }

  async #run(jobId: string, data: FleetJobData, running: RunningJob): Promise<FleetOutcome> {
    const refused = (message: string): FleetOutcome => {
      this.#logError(`weft worker: refused job ${jobId}: ${message}`);
      return { kind: 'tool-error', message };
    };
    if (data?.v !== FLEET_WIRE_VERSION) {
      return refused(
        `this job speaks fleet wire version ${data?.v}, this worker ${FLEET_WIRE_VERSION}: run the same weft version on servers and workers`,
      );
    }
    const tool = this.#tools.get(data.tool);
    if (!tool) {
      return refused(
        `tool "${data.tool}" is not registered on fleet worker ${this.#name}: start the worker with the module that defines it`,
      );
    }
    if (toolDigest(tool) !== data.digest) {
      return refused(
        `fleet worker ${this.#name} has another definition of tool "${data.tool}" than the server (its schemas or export differ): deploy the same tool module to both`,
      );
    }
    const abandoned = await this.#commands.exists(this.#keys.abandoned(jobId));
    if (abandoned === 1 || running.cancellation.cancelled) return { kind: 'cancelled', reason: 'cancelled' };
    let budgetMs = 0;
    if (data.deadlineAt !== undefined) {
      budgetMs = Math.floor(data.deadlineAt - this.#clock.now());
      if (budgetMs <= 0) return { kind: 'timeout', limitMs: data.budgetMs };
      running.stopBy = Date.now() + budgetMs + this.#options.graceMs + OVERDUE_SLACK_MS;
    }
    running.stage = 'running on the pool';
    const job = this.#telemetry?.startJob(jobId, tool.name, data.trace, this.#name);
    const outcome = await this.#engine.run({
      tool,
      args: data.args,
      budgetMs,
      cancellation: running.cancellation,
      events: jobEvents(this.#commands, this.#keys.eventsChannel(data.router), jobId, data, running),
      ...(data.clientCapabilities ? { peer: fleetPeer(data.clientCapabilities) } : {}),
      ...(data.inputs ? { inputs: data.inputs } : {}),
      ...(data.auth ? { auth: makePrincipal(data.auth) } : {}),
      ...(job ? { trace: job.trace } : {}),
    });
    job?.end(outcome);
    return storableOutcome(tool, outcome, data.budgetMs, this.#name);
  }

  /** Waits until a thread slot is free again (a terminated thread has exited), so BullMQ takes no job it cannot start. */
  async #slotFree(): Promise<void> {
    const deadline = Date.now() + SLOT_WAIT_MS;
    while (this.#engine.freeThreads === 0 && Date.now() < deadline && !this.#closing) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}
