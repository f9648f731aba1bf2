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
import { explain, UsageError } from './cli/cli-failure.js';
import { runServeCommand, SERVE_USAGE } from './cli/serve-command.js';
import { CLIENT_USAGE, runClientCommand } from './client-commands/client-commands.js';
import { DEV_USAGE, runDevCommand } from './dev/dev-command.js';
import { runWorkerCommand, WORKER_USAGE } from './fleet/worker-command.js';

const USAGE = `usage: ${SERVE_USAGE}\n       ${WORKER_USAGE}\n       ${DEV_USAGE}\n       ${CLIENT_USAGE}\n       weft --help | --version`;

/** Resolves with the exit code, or -1 while it serves (the process then lives on). */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      await runServeCommand(rest);
      return -1;
    case 'worker':
      return runWorkerCommand(rest);
    case 'dev':
      return runDevCommand(rest);
    case 'list':
    case 'call':
    case 'inspect':
      return runClientCommand(command, rest);
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(`${USAGE}\n`);
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

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    const { text, exitCode, usage } = explain(error);
    process.stderr.write(`${text}\n${usage ? `${USAGE}\n` : ''}`);
    process.exit(exitCode);
  },
);
