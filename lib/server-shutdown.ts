/**
 * A server's graceful stop, as one ordered sequence: take nothing new, end the listen streams, give
 * calls in flight their grace period, cancel the rest, stop tasks, stop the worker pools, then let
 * the sessions, the task store and the transports go. The order is the contract (a cancelled call
 * must still reach its transport), so it is written down in one place. Every wait in it has a
 * deadline, after which what it waited on is cut (a stalled Redis, a peer that stopped reading, a
 * thread in native code): a stop always ends, within `shutdownBoundMs`.
 */

import type { Engine } from './engine/engine.js';
import type { ListenStreams } from './router/listen-streams.js';
import type { TaskRunner } from './router/task-runner.js';
import type { ServerSessions } from './server-sessions.js';
import type { ServerTransports } from './server-transports.js';
import { settledWithin } from './settled-within.js';

/** How long shutdown waits for stdio's last answers to be written (the peer may not read). */
const FLUSH_WAIT_MS = 1_000;

/** How long shutdown waits for native calls pinned to threads to return (engine.nativeIdle). */
const NATIVE_WAIT_MS = 2_000;

/** How long shutdown waits for the worker pools to stop before it carries on without them. */
const ENGINE_CLOSE_WAIT_MS = 2_000;

/** How long stopped tasks get to write why they ended before the store is closed. */
const TASK_STOP_WAIT_MS = 1_000;

/** How long the task store gets to close politely (Redis QUIT) before it is disconnected. */
const STORE_CLOSE_WAIT_MS = 1_000;

/** How long the listeners get to close once their connections were ended. */
const TRANSPORTS_CLOSE_WAIT_MS = 1_000;

/** The longest the steps after the grace periods can take, each cut at its deadline. */
export const STOP_STEPS_BOUND_MS =
  FLUSH_WAIT_MS +
  NATIVE_WAIT_MS +
  ENGINE_CLOSE_WAIT_MS +
  TASK_STOP_WAIT_MS +
  STORE_CLOSE_WAIT_MS +
  TRANSPORTS_CLOSE_WAIT_MS;

/**
 * The longest a drain (SIGTERM) can take from the signal to the end of shutdown: the drain delay,
 * the longer of the calls' grace and the tasks' drain timeout, then the bounded steps
 * (docs/deploying.md, the drain timeline).
 */
export function shutdownBoundMs(options: {
  drainDelayMs?: number;
  shutdownGraceMs: number;
  drainTimeoutMs?: number;
}): number {
  const grace = Math.max(options.shutdownGraceMs, options.drainTimeoutMs ?? 0);
  return (options.drainDelayMs ?? 0) + grace + STOP_STEPS_BOUND_MS;
}

/** What shutdown stops, in the order it stops them. */
export interface ShutdownParts {
  transports: ServerTransports;
  listens: ListenStreams;
  sessions: ServerSessions;
  tasks: TaskRunner;
  engine: Engine;
  /** How long calls in flight get to finish before they are cancelled. */
  shutdownGraceMs: number;
  /** How long running tasks get to finish (from the start of shutdown) before they are stopped. */
  drainTimeoutMs?: number;
  logError: (message: string) => void;
}

export async function shutDown(parts: ShutdownParts): Promise<void> {
  const { transports, listens, sessions, tasks, engine, logError } = parts;
  const tasksDeadline = Date.now() + (parts.drainTimeoutMs ?? 0);
  transports.stopAccepting();
  // Listen streams never finish by themselves: they end first, gracefully (answered complete),
  // so the grace period below is spent on calls only.
  listens.endAll();
  const deadline = Date.now() + parts.shutdownGraceMs;
  while (sessions.inFlight > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  sessions.cancelAll('shutdown');
  // Tasks may run for hours: they get what is left of drainTimeoutMs, then stop and end failed,
  // saying they may be run again (a fleet task is handed to another replica instead).
  while (tasks.runningCount > 0 && Date.now() < tasksDeadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  tasks.stopAll();
  // Let the calls just cut off reach their transports (their answers say the server shut down).
  await new Promise((resolve) => setImmediate(resolve));
  if (!(await settledWithin(transports.flush(), FLUSH_WAIT_MS))) {
    logError(`weft: stdio's last answers were not read within ${FLUSH_WAIT_MS} ms; they are dropped`);
  }
  // Native work of a tool pinned to threads would call back into a thread the exit ends (SIGABRT):
  // it gets a bounded wait of its own; past it, the stop goes on and the hard stop has the last word.
  const nativeIdle = engine.nativeIdle((calls) =>
    logError(`weft: waiting for ${calls} calls of native tools pinned to threads to return before stopping`),
  );
  if (!(await settledWithin(nativeIdle, NATIVE_WAIT_MS))) {
    logError(`weft: native tools pinned to threads still run after ${NATIVE_WAIT_MS} ms; stopping anyway`);
  }
  // A thread stuck in native code (execSync, a sync addon) cannot be terminated until that call
  // returns; shutdown does not wait for it: such threads end with the process.
  if (!(await settledWithin(engine.close(), ENGINE_CLOSE_WAIT_MS))) {
    logError('weft: some worker threads are stuck in native code; they end with the process');
  }
  sessions.closeAll();
  // Give stopped tasks a moment to write why they ended, then let the store go.
  const stopping = Date.now() + TASK_STOP_WAIT_MS;
  while (tasks.runningCount > 0 && Date.now() < stopping) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  tasks.close();
  // A Redis that stopped answering never answers QUIT: the connection is cut instead.
  if (!(await settledWithin(tasks.store.close(), STORE_CLOSE_WAIT_MS))) {
    logError(`weft: the task store did not close within ${STORE_CLOSE_WAIT_MS} ms; its connections are cut`);
    tasks.store.disconnect?.();
  }
  // The listeners end their connections (half-open ones too); the deadline is for what is unknown.
  if (!(await settledWithin(transports.close(), TRANSPORTS_CLOSE_WAIT_MS))) {
    logError(
      `weft: the listeners did not close within ${TRANSPORTS_CLOSE_WAIT_MS} ms; they end with the process`,
    );
  }
}
