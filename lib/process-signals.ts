/**
 * What a listening server does to its process: SIGTERM (what a deploy sends) drains, then shuts
 * down gracefully; SIGINT shuts down gracefully at once; a second signal exits at once. An
 * unhandled rejection is logged instead of crashing every client's calls, and no child process a
 * tool spawned outlives the server. Every stop has a hard bound: should closing hang on something
 * nobody foresaw, the process exits (1) regardless once `hardStopMs` has passed.
 */
import { killChildProcessTrees } from './engine/process-tree.js';

/** Past the documented bound of a stop, how long it may still take before the process just exits. */
export const HARD_STOP_MARGIN_MS = 1_000;

/**
 * Closes the server, then exits the process (0), killing what tools spawned; exits 1 at `hardStopMs`
 * when closing has not finished by then.
 */
export async function shutdownAndExit(
  close: () => Promise<void>,
  logError: (message: string) => void,
  hardStopMs: number,
): Promise<void> {
  setTimeout(() => {
    logError(`weft: stopping did not finish within ${hardStopMs} ms, exiting now`);
    killChildProcessTrees();
    process.exit(1);
  }, hardStopMs).unref();
  try {
    await close();
  } catch (error) {
    logError(`weft: error during shutdown: ${(error as Error)?.stack ?? String(error)}`);
  }
  killChildProcessTrees();
  process.exit(0);
}

export function handleProcessSignals(
  close: () => Promise<void>,
  logError: (message: string) => void,
  drain: () => Promise<void>,
  hardStopMs: number,
): void {
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      logError(`weft: ${signal} again, exiting now`);
      killChildProcessTrees();
      process.exit(1);
    }
    signalled = true;
    shutdownAndExit(signal === 'SIGTERM' ? drain : close, logError, hardStopMs);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // Node's default for an unhandled rejection is to crash the process, which here would take
  // every other client's calls with it because one tool forgot an await.
  process.on('unhandledRejection', (reason) => {
    logError(
      `weft: unhandled promise rejection (the server keeps serving): ${(reason as Error)?.stack ?? String(reason)}`,
    );
  });
  process.once('exit', () => killChildProcessTrees());
}
