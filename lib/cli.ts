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
 */
// First, for its side effect: the compile cache must be on before the other modules load.
import './compile-cache.js';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { McpServer } from './server.js';

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
  return `usage: weft serve <module.js> (--stdio | --http PORT [--ws PORT]) [--host HOST] [--allowed-hosts LIST|any] [--allowed-origins LIST|any]\n       ${WORKER_USAGE}\n       ${DEV_USAGE}\n       ${CLIENT_USAGE}\n       weft --help | --version`;
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'worker') return (await workerCommand()).runWorkerCommand(argv.slice(1));
  if (argv[0] === 'dev') return (await devCommand()).runDevCommand(argv.slice(1));
  if (argv[0] === 'list' || argv[0] === 'call' || argv[0] === 'inspect') {
    return (await clientCommands()).runClientCommand(argv[0], argv.slice(1));
  }
  if (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    process.stdout.write(`${await usage()}\n`);
    return 0;
  }
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      stdio: { type: 'boolean', default: false },
      http: { type: 'string' },
      ws: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      // Behind a balancer, or on a public name, requests carry a Host that is not this machine's:
      // DNS-rebinding protection refuses it unless it is listed.
      'allowed-hosts': { type: 'string' },
      'allowed-origins': { type: 'string' },
      version: { type: 'boolean', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.version) {
    process.stdout.write('weft 0.1.0\n');
    return 0;
  }
  const [command, file] = positionals;
  const port = (text: string | undefined) => (text === undefined ? undefined : Number(text));
  const http = port(values.http);
  const ws = port(values.ws);
  const badPort = [http, ws].some((value) => value !== undefined && !(Number.isInteger(value) && value >= 0));
  if (
    command !== 'serve' ||
    file === undefined ||
    badPort ||
    !(values.stdio || http !== undefined || ws !== undefined)
  ) {
    process.stderr.write(`${await usage()}\n`);
    return 2;
  }
  const module = (await import(pathToFileURL(resolve(file)).href)) as { default?: unknown };
  const exported = typeof module.default === 'function' ? await module.default() : module.default;
  if (!(exported instanceof McpServer)) {
    process.stderr.write(`weft: ${file} must default-export an McpServer, or a function that returns one\n`);
    return 2;
  }
  const list = (text: string | undefined) =>
    text === undefined ? undefined : text === 'any' ? ('any' as const) : text.split(',').filter(Boolean);
  const allowedHosts = list(values['allowed-hosts']);
  const allowedOrigins = list(values['allowed-origins']);
  const guard = {
    ...(allowedHosts === undefined ? {} : { allowedHosts }),
    ...(allowedOrigins === undefined ? {} : { allowedOrigins }),
  };
  await exported.listen({
    stdio: values.stdio,
    ...(http === undefined ? {} : { http: { port: http, host: values.host, ...guard } }),
    ...(ws === undefined ? {} : { ws: { port: ws, host: values.host, ...guard } }),
  });
  return -1;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  async (error: unknown) => {
    process.stderr.write(`weft: ${(error as Error)?.message ?? String(error)}\n${await usage()}\n`);
    process.exit(2);
  },
);
