/**
 * What a router replica and a fleet worker (`weft worker`) say to each other through Redis: the
 * BullMQ job that carries a call, the result a worker stores for it, and the two pub/sub channels
 * beside the queue (cancels to every worker, events back to the replica that made the call).
 *
 * Both sides import this file and nothing else of each other, so the wire cannot drift: a job of
 * another wire version is refused by the worker with a message that says so.
 *
 * Why pub/sub beside the queue: a cancel must reach whichever worker runs the job now, within
 * milliseconds, and events go to the one replica holding the client's stream. Neither needs to be
 * durable: a cancel is also written as a marker key (a worker that picks the job up later sees it),
 * and an event nobody hears belongs to a call that is already over. The outcome, which must not be
 * lost, travels as the job's BullMQ return value and is read from the queue's event stream, which a
 * replica that reconnects resumes where it stopped.
 */
import { createHash } from 'node:crypto';
import type { Principal } from '../auth/principal.js';
import type { RegisteredBlockingTool } from '../tools/registered-tool.js';
import type { LogLevel } from '../tools/tool-context.js';
import type { TraceCarrier } from './call-observer.js';
import type { CallInputs } from './engine-call.js';
import type { Outcome } from './outcome.js';

export const FLEET_WIRE_VERSION = 1;

/** The BullMQ job's data: one tool call. */
export interface FleetJobData {
  v: typeof FLEET_WIRE_VERSION;
  tool: string;
  /** A digest of the router's definition of the tool: a worker running another one refuses the job. */
  digest: string;
  args: Record<string, unknown>;
  /** The call's deadline on the fleet's clock (Redis TIME, epoch ms); absent: no deadline. */
  deadlineAt?: number;
  /** The deadline that applies, in ms, for the timeout message. */
  budgetMs: number;
  /** The replica that made the call: its events channel. */
  router: string;
  wantsProgress: boolean;
  minLogLevel: number;
  clientCapabilities?: Record<string, unknown>;
  inputs?: CallInputs;
  /** Who is calling: the worker's handler sees it as ctx.auth (frozen again there). */
  auth?: Principal;
  /**
   * The call's trace context (W3C), when the replica is tracing: the worker's job span is its
   * child, so a fleet call's trace reaches the worker. Absent from jobs of older replicas.
   */
  trace?: TraceCarrier;
}

/** What a worker can end a job with: every outcome but the router's own (overloaded). */
export type FleetOutcome = Exclude<Outcome, { kind: 'overloaded' }>;

/** The job's return value. */
export interface FleetResult {
  outcome: FleetOutcome;
  /** Events published before this result, so the replica can wait for those still on their way. */
  events: number;
  /** Which worker ran it (`host/pid`), for the log. */
  worker: string;
}

/** A cancel, published to every worker. */
export interface FleetCancel {
  jobId: string;
  reason: 'timeout' | 'cancelled' | 'shutdown';
}

/** A progress or log event, published to the replica that made the call. */
export type FleetEvent =
  | { jobId: string; kind: 'progress'; progress: number; total?: number; message?: string }
  | { jobId: string; kind: 'log'; level: LogLevel; data: unknown };

/** The names one queue's fleet uses in Redis, beside BullMQ's own keys (`bull:<queue>:*`). */
export class FleetKeys {
  readonly queue: string;

  constructor(queue: string) {
    this.queue = queue;
  }

  get cancelChannel(): string {
    return `weft:fleet:${this.queue}:cancel`;
  }

  eventsChannel(router: string): string {
    return `weft:fleet:${this.queue}:events:${router}`;
  }

  /** Set when a job's call was abandoned: a worker that picks the job up later drops it unrun. */
  abandoned(jobId: string): string {
    return `weft:fleet:${this.queue}:abandoned:${jobId}`;
  }
}

const digests = new WeakMap<RegisteredBlockingTool, string>();

/**
 * What must agree between a replica's definition of a tool and a worker's for the worker to run
 * its calls: the name, the schemas and which export holds the handler (not the module's path,
 * which differs between machines). Worked out once per tool.
 */
export function toolDigest(tool: RegisteredBlockingTool): string {
  let digest = digests.get(tool);
  if (digest === undefined) {
    const { inputSchema, outputSchema } = tool.descriptor;
    const facts = [tool.name, inputSchema, outputSchema ?? null, tool.exportName, tool.isolation];
    digest = createHash('sha256').update(JSON.stringify(facts)).digest('hex').slice(0, 16);
    digests.set(tool, digest);
  }
  return digest;
}

/** A job's result as read back from BullMQ (a string in the event stream, an object in a Job). */
export function readFleetResult(value: unknown): FleetResult | undefined {
  const parsed = typeof value === 'string' ? safeParse(value) : value;
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const result = parsed as Partial<FleetResult>;
  if (typeof result.outcome !== 'object' || result.outcome === null) return undefined;
  if (typeof (result.outcome as { kind?: unknown }).kind !== 'string') return undefined;
  return {
    outcome: result.outcome,
    events: Number(result.events) || 0,
    worker: String(result.worker ?? '?'),
  };
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
