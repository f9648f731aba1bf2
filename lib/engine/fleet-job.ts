/**
 * The BullMQ job a fleet call becomes, and how a job is stopped: what the replica writes to Redis
 * for one attempt of a call (fleet-protocol.ts says what each field means to the worker).
 *
 * Split from fleet-executor.ts, which decides calls; this file only shapes and writes jobs.
 * - A job carries the deadline as a time on the fleet's clock (Redis TIME, fleet-clock.ts), not a
 *   duration, so a job that waited in the queue is stopped at the call's deadline, not after it.
 * - A job runs once (`attempts: 1`): a rerun after a worker's death is the replica's decision
 *   (`fleetRetries`), made as a new job, never BullMQ's.
 * - Finished jobs stay a while, so that a replica adopting a task can still read their outcome.
 * - A stop is a marker key (a worker that picks the job up later drops it unrun) and a message to
 *   every worker (the one running it raises its flag), and a waiting job leaves the queue.
 */
import type { AbandonReason } from './abandon-reason.js';
import type { FleetCall } from './fleet-call.js';
import type { FleetLink } from './fleet-link.js';
import { FLEET_WIRE_VERSION, type FleetJobData, toolDigest } from './fleet-protocol.js';

/** How long an abandoned job's marker lives: longer than any job waits in a queue that moves. */
const ABANDONED_TTL_MS = 3_600_000;
/** Finished jobs are kept this long (seconds) so a replica adopting a task can still read them. */
const KEEP_FINISHED_S = 600;

/** The job of the call's next attempt; `remainingMs` (0: no deadline) of its budget is left. */
export function jobDataOf(fc: FleetCall, link: FleetLink, remainingMs: number): FleetJobData {
  const { call } = fc;
  const data: FleetJobData = {
    v: FLEET_WIRE_VERSION,
    tool: call.tool.name,
    digest: toolDigest(call.tool),
    args: call.args,
    budgetMs: call.budgetMs,
    router: link.router,
    wantsProgress: call.events.progress !== undefined,
    minLogLevel: call.events.minLogLevel,
  };
  if (remainingMs > 0) data.deadlineAt = Math.round(link.clock.now() + remainingMs);
  if (call.peer) data.clientCapabilities = call.peer.clientCapabilities;
  if (call.auth) data.auth = call.auth;
  if (call.inputs) data.inputs = call.inputs;
  else if (fc.answers) data.inputs = { answers: fc.answers };
  const trace = call.watch?.carrier();
  if (trace !== undefined) data.trace = trace;
  return data;
}

/** Adds the job to the queue under `jobId`. */
export async function addJob(link: FleetLink, jobId: string, data: FleetJobData): Promise<void> {
  await link.queue.add(data.tool, data, {
    jobId,
    attempts: 1,
    removeOnComplete: { age: KEEP_FINISHED_S },
    removeOnFail: { age: KEEP_FINISHED_S },
  });
  link.jobAdded();
}

/** Stops a job wherever it is; settles (never rejects) once Redis has the writes. */
export function cancelJob(link: FleetLink, jobId: string, reason: AbandonReason): Promise<unknown> {
  return Promise.allSettled([
    link.commands
      .multi()
      .set(link.keys.abandoned(jobId), reason, 'PX', ABANDONED_TTL_MS)
      .publish(link.keys.cancelChannel, JSON.stringify({ jobId, reason }))
      .exec(),
    // A job still waiting leaves the queue; a running one is locked by its worker and stays.
    link.queue.remove(jobId),
  ]);
}
