/**
 * `weft worker`: serves a fleet queue with the blocking tools of a module until SIGTERM or SIGINT,
 * which stop it gracefully (running calls get the grace to finish; a second signal exits at once).
 *
 *   weft worker ./dist/tools.js --redis redis://10.0.0.5:6379 [--threads N] [--queue NAME]
 *               [--grace-ms N] [--lock-ms N] [--shutdown-grace-ms N]
 */
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { killChildProcessTrees } from '../engine/process-tree.js';
import { FleetWorker } from './fleet-worker.js';
import { loadWorkerTools } from './worker-tools.js';

/** Past the shutdown grace, how long closing may take before the process exits without it. */
const HARD_STOP_MARGIN_MS = 10_000;

export const WORKER_USAGE =
  'weft worker <module.js> --redis URL [--threads N] [--queue NAME] [--grace-ms N] [--lock-ms N] [--shutdown-grace-ms N]';

/** Runs the command; resolves with an exit code when it fails to start, never when it serves. */
export async function runWorkerCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      redis: { type: 'string' },
      threads: { type: 'string' },
      queue: { type: 'string', default: 'weft' },
      'grace-ms': { type: 'string' },
      'lock-ms': { type: 'string' },
      'shutdown-grace-ms': { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  const [file] = positionals;
  if (file === undefined || values.redis === undefined) {
    process.stderr.write(`usage: ${WORKER_USAGE}\n`);
    return 2;
  }
  const number = (text: string | undefined, what: string): number | undefined => {
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!Number.isInteger(value) || value < 0)
      throw new TypeError(`${what} must be a whole number, got ${text}`);
    return value;
  };
  const shutdownGraceMs = number(values['shutdown-grace-ms'], '--shutdown-grace-ms') ?? 5_000;
  const tools = await loadWorkerTools(file);
  const worker = new FleetWorker(tools, {
    redis: values.redis,
    queue: values.queue,
    threads: number(values.threads, '--threads') ?? availableParallelism(),
    ...optional('graceMs', number(values['grace-ms'], '--grace-ms')),
    ...optional('lockMs', number(values['lock-ms'], '--lock-ms')),
  });
  try {
    await worker.start();
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 1;
  }
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      process.stderr.write(`weft worker: ${signal} again, exiting now\n`);
      killChildProcessTrees();
      process.exit(1);
    }
    stopping = true;
    process.stderr.write(`weft worker: ${signal}, finishing ${worker.runningCount} running call(s)\n`);
    // A last bound, should closing hang on something not yet known: the process ends regardless.
    setTimeout(() => {
      process.stderr.write('weft worker: closing did not finish in time, exiting now\n');
      killChildProcessTrees();
      process.exit(1);
    }, shutdownGraceMs + HARD_STOP_MARGIN_MS).unref();
    worker.close(shutdownGraceMs).finally(() => {
      killChildProcessTrees();
      process.exit(0);
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.once('exit', () => killChildProcessTrees());
  process.stderr.write(
    `weft worker: serving queue "${values.queue}" with ${worker.threads} thread${worker.threads === 1 ? '' : 's'} (tools: ${worker.toolNames.join(', ')})\n`,
  );
  return -1;
}

function optional<K extends string>(key: K, value: number | undefined): { [P in K]?: number } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: number };
}
