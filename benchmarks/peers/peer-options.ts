/**
 * The command line every benchmark server accepts, so the load generator can start any of them the
 * same way: `--stdio`, or `--http <port>` (Streamable HTTP at /mcp), plus `--threads N` where a pool
 * exists and `--nice N` where the pool's threads can be reniced (weft). A server started with a transport it does not have exits with code 3 and says so, which
 * the runner reads as "skip this transport".
 */
import { parseArgs } from 'node:util';

export interface PeerOptions {
  stdio: boolean;
  httpPort: number | undefined;
  wsPort: number | undefined;
  threads: number | undefined;
  nice: number | undefined;
  /** weft only: `--fairness off` serves callers first come, first served (the fairness option). */
  fairness: 'on' | 'off';
  /** weft only: install one middleware that does nothing but call next() (its cost, measured). */
  noopMiddleware: boolean;
}

export const UNSUPPORTED_TRANSPORT_EXIT = 3;

/**
 * The SDK's stdio reader throws past 10 MiB of buffered input by default and its server exits with
 * code 0: an 8 MiB image argument is 11.2 MB as base64, so the payload scenario's SDK peers raise
 * the cap as a user with such tools would, to weft's default (`maxMessageBytes`, 16 MiB).
 */
export const SDK_STDIO_OPTIONS = { maxBufferSize: 16 * 1024 * 1024 };

export function readPeerOptions(argv: string[] = process.argv.slice(2)): PeerOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      stdio: { type: 'boolean', default: false },
      http: { type: 'string' },
      ws: { type: 'string' },
      threads: { type: 'string' },
      nice: { type: 'string' },
      fairness: { type: 'string', default: 'on' },
      'noop-middleware': { type: 'boolean', default: false },
    },
    strict: true,
  });
  const int = (text: string | undefined) => (text === undefined ? undefined : Number.parseInt(text, 10));
  return {
    stdio: values.stdio,
    httpPort: int(values.http),
    wsPort: int(values.ws),
    threads: int(values.threads),
    nice: int(values.nice),
    fairness: values.fairness === 'off' ? 'off' : 'on',
    noopMiddleware: values['noop-middleware'],
  };
}

/** Exits with the code the runner understands as "this server has no such transport". */
export function refuseTransport(server: string, transport: string): never {
  process.stderr.write(`${server}: no ${transport} transport\n`);
  process.exit(UNSUPPORTED_TRANSPORT_EXIT);
}
