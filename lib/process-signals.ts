/**
 * What a listening server does to its process: SIGTERM (what a deploy sends) drains, then shuts
 * down gracefully; SIGINT shuts down gracefully at once; a second signal exits at once. An
 * unhandled rejection is logged instead of crashing every client's calls, and no child process a
 * tool spawned outlives the server.
 */
import { killChildProcessTrees } from './engine/process-tree.js';

/** Closes the server, then exits the process (0), killing what tools spawned. */
export async function shutdownAndExit(
  close: () => Promise<void>,
  logError: (message: string) => void,
): Promise<void> {
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
  drain: () => Promise<void> = close,
): void {
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      logError(`weft: ${signal} again, exiting now`);
      killChildProcessTrees();
      process.exit(1);
    }
    signalled = true;
    shutdownAndExit(signal === 'SIGTERM' ? drain : close, logError);
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
