/**
 * A router replica's connections to the fleet's Redis, and what arrives on them: BullMQ's queue
 * (to add jobs), its event stream (job outcomes), and a pub/sub subscription to this replica's own
 * events channel (progress and log of its calls).
 *
 * Three connections because Redis makes them so: a stream read blocks its connection and a
 * subscribed connection can do nothing else. The command connection has no offline queue, so that
 * while Redis is unreachable a call fails at once instead of waiting in ioredis's buffer; the
 * event-stream reader resumes after a reconnect from the last event it saw, so no outcome is
 * missed because of a short outage.
 *
 * bullmq is imported when the link opens, so servers without a fleet never load it.
 */
import { randomBytes } from 'node:crypto';
import type { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { loadBullmq, loadIoredis } from '../optional-peers.js';
import { redactedUrl } from '../redis-url.js';
import { FleetClock } from './fleet-clock.js';
import { type FleetEvent, FleetKeys } from './fleet-protocol.js';

export interface FleetLinkHandlers {
  completed(jobId: string, returnValue: unknown): void;
  failed(jobId: string, reason: string): void;
  event(event: FleetEvent): void;
  /** The command connection went down: what was in flight cannot be followed any more. */
  lost(why: string): void;
  /** The command connection is back after a loss. */
  regained(): void;
}

export interface FleetLinkOptions {
  redis: string;
  queue: string;
}

/** How long a read of the fleet queue's waiting count stands (see waitingJobs). */
const WAITING_COUNT_MS = 25;

/** How long opening the link may take before the server refuses to start. */
const OPEN_TIMEOUT_MS = 10_000;
/** How long closing waits for BullMQ to end its reads cleanly before the connections are cut. */
const CLOSE_WAIT_MS = 1_000;

export class FleetLink {
  readonly keys: FleetKeys;
  /** This replica, as workers address its events channel. */
  readonly router = randomBytes(6).toString('hex');
  readonly clock: FleetClock;
  readonly commands: Redis;
  readonly url: string;
  #queue: Queue | undefined;
  #events: QueueEvents | undefined;
  readonly #subscriber: Redis;
  /** The connection QueueEvents reads on, duplicated from `commands`. */
  #eventsConnection: Redis | undefined;
  readonly #handlers: FleetLinkHandlers;
  #lastError: Error | undefined;
  #closing = false;
  /** The fleet queue's waiting count as last read, when, and the jobs this replica added since. */
  #waitingCount = 0;
  #countedAt = Number.NEGATIVE_INFINITY;
  #addedSinceCount = 0;
  #counting: Promise<number> | undefined;

  constructor(options: FleetLinkOptions, handlers: FleetLinkHandlers) {
    this.keys = new FleetKeys(options.queue);
    this.url = redactedUrl(options.redis);
    this.commands = new (loadIoredis('the fleet (McpServer option fleet)').Redis)(options.redis, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      lazyConnect: true,
    });
    this.#subscriber = new (loadIoredis('the fleet (McpServer option fleet)').Redis)(options.redis, {
      lazyConnect: true,
      maxRetriesPerRequest: null,
    });
    this.clock = new FleetClock(this.commands);
    const remember = (error: Error) => {
      this.#lastError = error;
    };
    this.commands.on('error', remember);
    this.#subscriber.on('error', remember);
    let down = false;
    this.commands.on('close', () => {
      if (this.#closing || this.#queue === undefined || down) return;
      down = true;
      handlers.lost(this.downReason);
    });
    this.commands.on('ready', () => {
      if (!down) return;
      down = false;
      handlers.regained();
    });
    this.#subscriber.on('message', (_channel: string, text: string) => {
      const event = parseEvent(text);
      if (event) handlers.event(event);
    });
    this.#handlers = handlers;
  }

  /** Connects everything; rejects, saying why, when Redis cannot be reached in time. */
  async open(): Promise<void> {
    const { Queue, QueueEvents } = await loadBullmq('the fleet (McpServer option fleet)');
    const opened = (async () => {
      await Promise.all([this.commands.connect(), this.#subscriber.connect()]);
      await this.#subscriber.subscribe(this.keys.eventsChannel(this.router));
      await this.clock.start();
      this.#queue = new Queue(this.keys.queue, { connection: this.commands, skipWaitingForReady: true });
      this.#queue.on('error', (error: Error) => {
        this.#lastError = error;
      });
      // Ours to close: BullMQ does not end a connection it was given, and one left reconnecting
      // to a Redis that is down would keep the process alive after close.
      const connection = this.commands.duplicate({
        maxRetriesPerRequest: null,
        enableOfflineQueue: true,
        lazyConnect: false,
      });
      connection.on('error', (error: Error) => {
        this.#lastError = error;
      });
      this.#eventsConnection = connection;
      const events = new QueueEvents(this.keys.queue, { connection });
      events.on('error', (error: Error) => {
        this.#lastError = error;
      });
      events.on('completed', ({ jobId, returnvalue }) => this.#handlers.completed(jobId, returnvalue));
      events.on('failed', ({ jobId, failedReason }) => this.#handlers.failed(jobId, failedReason));
      this.#events = events;
      await events.waitUntilReady();
    })();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new Error(`the fleet's Redis at ${this.url} did not answer within ${OPEN_TIMEOUT_MS} ms`)),
        OPEN_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([opened, timeout]);
    } catch (error) {
      await this.close();
      throw new Error(
        `weft: cannot reach the fleet's Redis at ${this.url}: ${(error as Error)?.message ?? String(error)}${this.#lastError ? ` (${this.#lastError.message})` : ''}. Start Redis, or fix fleet.redis.`,
      );
    } finally {
      clearTimeout(timer);
    }
  }

  get queue(): Queue {
    if (!this.#queue) throw new Error('the fleet link is not open');
    return this.#queue;
  }

  /** True while commands can be sent. */
  get up(): boolean {
    return this.#queue !== undefined && this.commands.status === 'ready';
  }

  /**
   * Where these jobs stand, as far as a waiting replica must know: `lost`, with why, when the
   * worker is gone (a job a worker took and did not finish whose BullMQ lock, renewed by a live
   * worker every half lock duration, lapsed) or the job is no longer in Redis; `finished` when it
   * has ended (its outcome then is in the job, whether or not its event was heard). Reads BullMQ's
   * job hash and lock key directly (`bull:<q>:<id>`, `...:lock`): BullMQ has no call that asks
   * this of many jobs at once.
   */
  async checkJobs(jobIds: readonly string[]): Promise<{ lost: Map<string, string>; finished: Set<string> }> {
    const pipeline = this.commands.pipeline();
    for (const jobId of jobIds) {
      const key = this.queue.toKey(jobId);
      pipeline.hmget(key, 'processedOn', 'finishedOn').exists(`${key}:lock`).exists(key);
    }
    const replies = (await pipeline.exec()) ?? [];
    const lost = new Map<string, string>();
    const finished = new Set<string>();
    jobIds.forEach((jobId, index) => {
      const [times, lock, exists] = replies.slice(index * 3, index * 3 + 3).map((reply) => reply?.[1]);
      const [processedOn, finishedOn] = (times as Array<string | null> | undefined) ?? [];
      if (exists === 0) lost.set(jobId, 'the fleet job vanished from Redis');
      else if (finishedOn) finished.add(jobId);
      else if (processedOn && lock === 0) {
        lost.set(jobId, 'the fleet worker running the call died (its job lock lapsed)');
      }
    });
    return { lost, finished };
  }

  /**
   * How many jobs wait in the fleet queue, for the maxWaiting bound: read from Redis at most every
   * WAITING_COUNT_MS, counting in between the jobs this replica added (workers taking jobs are not
   * counted, so the estimate errs on the full side). A read per call was one of the round trips
   * every fleet call waited for.
   */
  async waitingJobs(): Promise<number> {
    if (Date.now() - this.#countedAt < WAITING_COUNT_MS) return this.#waitingCount + this.#addedSinceCount;
    this.#counting ??= this.queue
      .getWaitingCount()
      .then((count) => {
        this.#waitingCount = count;
        this.#countedAt = Date.now();
        this.#addedSinceCount = 0;
        return count;
      })
      .finally(() => {
        this.#counting = undefined;
      });
    return this.#counting;
  }

  /** This replica added a job (see waitingJobs). */
  jobAdded(): void {
    this.#addedSinceCount++;
  }

  /** Where a job stands now: for a replica that takes over following a job another one added. */
  async jobState(
    jobId: string,
  ): Promise<
    | { state: 'finished'; value: unknown; data: unknown }
    | { state: 'failed'; reason: string; data: unknown }
    | { state: 'missing' }
    | { state: 'pending'; data: unknown }
  > {
    const job = await this.queue.getJob(jobId);
    if (!job) return { state: 'missing' };
    if (job.finishedOn && job.failedReason)
      return { state: 'failed', reason: job.failedReason, data: job.data };
    if (job.finishedOn) return { state: 'finished', value: job.returnvalue, data: job.data };
    return { state: 'pending', data: job.data };
  }

  /** Why the fleet cannot be reached now, for an error message. */
  get downReason(): string {
    return `the fleet's Redis at ${this.url} is unreachable${this.#lastError ? ` (${this.#lastError.message})` : ''}`;
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.clock.stop();
    // BullMQ's close waits for its connections to answer; with Redis away they never do, and the
    // connections would go on reconnecting for good, keeping the process alive after server.close().
    // So it gets a bounded wait, and then every connection is ended whatever it was doing. (BullMQ's
    // own disconnect() would wait for a connection too. Its event reader's watchdog, a timer of its
    // read's block time plus a second, still runs out after that: the process ends within ~11 s.)
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([this.#events?.close(), this.#queue?.close()]),
      new Promise((resolve) => {
        waited = setTimeout(resolve, CLOSE_WAIT_MS);
      }),
    ]);
    clearTimeout(waited);
    for (const redis of [this.commands, this.#subscriber, this.#eventsConnection]) redis?.disconnect();
  }
}

function parseEvent(text: string): FleetEvent | undefined {
  try {
    const event = JSON.parse(text) as FleetEvent;
    return typeof event?.jobId === 'string' ? event : undefined;
  } catch {
    return undefined;
  }
}
