/**
 * The edges of a fleet job's call on the worker: where its progress and logs go (the events
 * channel of the replica that made the call, counted so the replica can wait for the last ones
 * before the result), what its handler can reach beyond the call (the client's capabilities and
 * the job's book of answers, nothing of the server's registries, which live on the replica), and
 * its outcome made storable as BullMQ's return value (JSON, or the tool error it would be locally).
 *
 * Split from fleet-worker.ts, which takes jobs and runs them on the engine; these are the pieces
 * that touch only the one call.
 */
import type { Redis } from 'ioredis';
import type { CallEvents, CallPeer } from '../engine/engine-call.js';
import type { FleetEvent, FleetJobData, FleetOutcome } from '../engine/fleet-protocol.js';
import type { Outcome } from '../engine/outcome.js';
import { encodeJson } from '../protocol/message-encoding.js';
import type { RegisteredBlockingTool } from '../tools/registered-tool.js';

/** What a job has published so far: how many events, and the last publish (awaited before the result). */
export interface PublishedEvents {
  events: number;
  lastPublish: Promise<unknown>;
}

/** Progress and log go to the replica that made the call, on its own channel (`channel`). */
export function jobEvents(
  commands: Redis,
  channel: string,
  jobId: string,
  data: FleetJobData,
  published: PublishedEvents,
): CallEvents {
  const publish = (event: FleetEvent) => {
    const json = encodeJson(event);
    if (!json.ok) return;
    published.events++;
    published.lastPublish = commands.publish(channel, json.text).catch(() => 0);
  };
  const events: CallEvents = {
    minLogLevel: data.minLogLevel,
    log: (level, logged) => publish({ jobId, kind: 'log', level, data: logged }),
  };
  if (data.wantsProgress) {
    events.progress = (progress, total, message) => {
      const event: FleetEvent = { jobId, kind: 'progress', progress };
      if (total !== undefined) event.total = total;
      if (message !== undefined) event.message = message;
      publish(event);
    };
  }
  return events;
}

/** The outcome as BullMQ can store it: a value that is not JSON becomes the tool error it would be locally. */
export function storableOutcome(
  tool: RegisteredBlockingTool,
  outcome: Outcome,
  budgetMs: number,
  worker: string,
): FleetOutcome {
  if (outcome.kind === 'overloaded')
    return { kind: 'panicked', detail: `fleet worker ${worker}: ${outcome.reason}` };
  if (outcome.kind === 'timeout') return { kind: 'timeout', limitMs: budgetMs };
  if (outcome.kind !== 'ok') return outcome;
  const json = encodeJson(outcome.value);
  if (json.ok) return outcome;
  return {
    kind: 'tool-error',
    message: `Tool "${tool.name}" returned a value that cannot be sent as JSON: ${json.problem}`,
  };
}

/**
 * What a handler on a fleet worker reaches beyond its call: the client's capabilities (its
 * questions are answered from the job's book, or end the attempt), and nothing else: the server's
 * registries live on the replica, not here.
 */
export function fleetPeer(clientCapabilities: Record<string, unknown>): CallPeer {
  const unavailable = (what: string) => {
    throw new Error(
      `${what} is not available to a tool running on a fleet worker; run the tool with placement: 'local' to use it`,
    );
  };
  return {
    clientCapabilities,
    request: () =>
      Promise.reject(new Error('A tool on a fleet worker asks its client only through a book of answers')),
    tools: () => unavailable('ctx.tools()'),
    resources: () => unavailable('ctx.resources()'),
    prompts: () => unavailable('ctx.prompts()'),
  };
}
