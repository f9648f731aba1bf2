#!/usr/bin/env node
/**
 * The `weft` command: serves a module whose default export is an McpServer (or a function that
 * returns one), so a server file need not contain its own transport code.
 *
 *   weft serve ./dist/my-server.js --stdio
 *   weft serve ./dist/my-server.js --http 3000 [--ws 3001] [--host 127.0.0.1]
 *              [--allowed-hosts mcp.example.com,... | any] [--allowed-origins https://app.example,... | any]
 *   weft worker ./dist/my-server.js --redis redis://127.0.0.1:6379 [--threads N] [--queue NAME]
 *   weft dev ./src/my-server.ts [--http 3000]     (restarts on every change; lib/dev/)
 *   weft list | inspect <target>, weft call <target> <tool> key=value ...   (lib/client-commands/)
 *
 * What it prints when it fails, and its exit codes, are cli/cli-failure.ts's.
 */
// First, for its side effect: the compile cache must be on before the other modules load.
import './compile-cache.js';
import { explain, UsageError } from './cli/cli-failure.js';
import { runServeCommand, SERVE_USAGE } from './cli/serve-command.js';

// The other commands load only when named: `weft serve --stdio`, spawned at every start of a
// desktop client, loads neither the client, nor `weft dev`'s builder, nor the fleet.
const workerCommand = () => import('./fleet/worker-command.js');
const devCommand = () => import('./dev/dev-command.js');
const clientCommands = () => import('./client-commands/client-commands.js');

async function usage(): Promise<string> {
  const [{ WORKER_USAGE }, { DEV_USAGE }, { CLIENT_USAGE }] = await Promise.all([
    workerCommand(),
    devCommand(),
    clientCommands(),
  ]);
  return `usage: ${SERVE_USAGE}\n       ${WORKER_USAGE}\n       ${DEV_USAGE}\n       ${CLIENT_USAGE}\n       weft --help | --version`;
}

/** Resolves with the exit code, or -1 while it serves (the process then lives on). */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      await runServeCommand(rest);
      return -1;
    case 'worker':
      return (await workerCommand()).runWorkerCommand(rest);
    case 'dev':
      return (await devCommand()).runDevCommand(rest);
    case 'list':
    case 'call':
    case 'inspect':
      return (await clientCommands()).runClientCommand(command, rest);
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(`${await usage()}\n`);
      return 0;
    case '--version':
      process.stdout.write('weft 0.1.0\n');
      return 0;
    case undefined:
      throw new UsageError('which command? serve, dev, worker, list, call or inspect');
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/**
 * Exits once what was written has left: stdout to a pipe may be written asynchronously, and exiting
 * at once would cut a large result (`weft call ... | jq`) short.
 */
async function exitAfterOutput(code: number): Promise<never> {
  await Promise.all(
    [process.stdout, process.stderr].map(
      (stream) =>
        new Promise<void>((resolve) =>
          stream.writableLength > 0 ? stream.write('', () => resolve()) : resolve(),
        ),
    ),
  );
  process.exit(code);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) return exitAfterOutput(code);
  },
  async (error: unknown) => {
    const { text, exitCode, usage: showUsage } = explain(error);
    process.stderr.write(`${text}\n${showUsage ? `${await usage()}\n` : ''}`);
    return exitAfterOutput(exitCode);
  },
);
