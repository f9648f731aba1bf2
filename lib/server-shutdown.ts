/**
 * A server's graceful stop, as one ordered sequence: take nothing new, end the listen streams, give
 * calls in flight their grace period, cancel the rest, stop tasks, stop the worker pools, then let
 * the sessions, the task store and the transports go. The order is the contract (a cancelled call
 * must still reach its transport), so it is written down in one place.
 */

import type { Engine } from './engine/engine.js';
import type { ListenStreams } from './router/listen-streams.js';
import type { TaskRunner } from './router/task-runner.js';
import type { ServerSessions } from './server-sessions.js';
import type { ServerTransports } from './server-transports.js';

/** How long shutdown waits for the worker pools to stop before it carries on without them. */
const ENGINE_CLOSE_WAIT_MS = 2_000;

/** How long stopped tasks get to write why they ended before the store is closed. */
const TASK_STOP_WAIT_MS = 1_000;

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
  await transports.flush();
  // Native work of a tool pinned to threads would call back into a thread the exit ends (SIGABRT).
  await engine.nativeIdle((calls) =>
    logError(`weft: waiting for ${calls} calls of native tools pinned to threads to return before stopping`),
  );
  // A thread stuck in native code (execSync, a sync addon) cannot be terminated until that call
  // returns; shutdown does not wait for it: such threads end with the process.
  let timer: NodeJS.Timeout | undefined;
  const done = await Promise.race([
    engine.close().then(() => true),
    new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ENGINE_CLOSE_WAIT_MS);
    }),
  ]);
  clearTimeout(timer);
  if (!done) {
    logError('weft: some worker threads are stuck in native code; they end with the process');
  }
  sessions.closeAll();
  // Give stopped tasks a moment to write why they ended, then let the store go.
  const stopping = Date.now() + TASK_STOP_WAIT_MS;
  while (tasks.runningCount > 0 && Date.now() < stopping) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  tasks.close();
  await tasks.store.close();
  await transports.close();
}
