/**
 * `weft serve <module.js> (--stdio | --http PORT [--ws PORT]) ...`: loads the server module
 * (load-server.ts), listens, and says on stderr where it is ready, one line per transport, with
 * the URL a client connects to (stdout belongs to stdio's JSON-RPC).
 */
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { CommandFailure, EXIT, UsageError } from './cli-failure.js';
import { loadServer } from './load-server.js';

export const SERVE_USAGE =
  'weft serve <module.js> (--stdio | --http PORT [--ws PORT]) [--host HOST] [--allowed-hosts LIST|any] [--allowed-origins LIST|any] [--quiet]';

/** Serves until the process is stopped; throws what prevents it (cli-failure.ts explains it). */
export async function runServeCommand(argv: string[]): Promise<void> {
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
      // No ready lines: for `weft list ./server.js`, which starts this command itself.
      quiet: { type: 'boolean', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  const [file, extra] = positionals;
  if (file === undefined) throw new UsageError('weft serve needs the server module to serve');
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
  const http = port(values.http, '--http');
  const ws = port(values.ws, '--ws');
  if (!(values.stdio || http !== undefined || ws !== undefined)) {
    throw new CommandFailure(
      'weft serve needs a transport: add --stdio (for a client that starts the server), ' +
        '--http PORT (Streamable HTTP), or --ws PORT (WebSocket)',
      EXIT.mistyped,
    );
  }
  const server = await loadServer(file);
  const list = (text: string | undefined) =>
    text === undefined ? undefined : text === 'any' ? ('any' as const) : text.split(',').filter(Boolean);
  const allowedHosts = list(values['allowed-hosts']);
  const allowedOrigins = list(values['allowed-origins']);
  const guard = {
    ...(allowedHosts === undefined ? {} : { allowedHosts }),
    ...(allowedOrigins === undefined ? {} : { allowedOrigins }),
  };
  await server.listen({
    stdio: values.stdio,
    ...(http === undefined ? {} : { http: { port: http, host: values.host, ...guard } }),
    ...(ws === undefined ? {} : { ws: { port: ws, host: values.host, ...guard } }),
  });
  const { addresses } = server;
  const ready = (line: string) => values.quiet || process.stderr.write(`weft: ${file} ready ${line}\n`);
  if (values.stdio) ready('on stdio');
  if (addresses.http) ready(`at ${url('http', addresses.http)}/mcp (Streamable HTTP)`);
  if (addresses.ws) ready(`at ${url('ws', addresses.ws)}/ (WebSocket)`);
}

function port(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isInteger(value) || value < 0 || value > 65_535) {
    throw new UsageError(`${flag} takes a port number (0 to 65535), got "${text}"`);
  }
  return value;
}

function url(scheme: string, address: AddressInfo): string {
  const host =
    address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;
  return `${scheme}://${host}:${address.port}`;
}
