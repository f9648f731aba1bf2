/**
 * The servers under test and how to start each over each transport. weft runs its benchmark server
 * (the demo tools plus the noop pair); each peer is one script. All take the same flags (see
 * peers/peer-options.ts).
 */
import { fileURLToPath } from 'node:url';
import type { TransportName } from '../load/wire.js';

export type ServerId =
  | 'weft'
  | 'weft-auth'
  | 'weft-fifo'
  | 'weft-middleware'
  | 'weft-fleet'
  | 'sdk'
  | 'sdk-piscina'
  | 'fastmcp'
  | 'floor'
  | 'sdk-v2'
  | 'bare-piscina'
  | 'weft-telemetry-off'
  | 'weft-telemetry-none'
  | 'weft-telemetry-sdk'
  | 'weft-telemetry-sampled';

export interface ServerSpec {
  id: ServerId;
  /** How the server is named in tables and charts. */
  label: string;
  /** The tool that does nothing on a pool thread, when the server has a pool. */
  blockingNoop?: string;
  /** Only run when named with `--servers` (a variant of another server, not a peer). */
  onRequest?: boolean;
  /** Whether `--threads N` sizes a worker pool. */
  hasPool: boolean;
  /** The script and flags that serve `transport` on `port` (stdio ignores the port). */
  command(transport: TransportName, port: number): { script: string; args: string[] };
}

const dist = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));

/** Both HTTP eras are one endpoint: a server serves modern requests on its ordinary `--http` port. */
const transportFlags = (transport: TransportName, port: number): string[] =>
  transport === 'stdio'
    ? ['--stdio']
    : [transport === 'modern-http' ? '--http' : `--${transport}`, String(port)];

const peer = (file: string) => (transport: TransportName, port: number) => ({
  script: dist(`../peers/${file}`),
  args: transportFlags(transport, port),
});

export const SERVERS: readonly ServerSpec[] = [
  {
    id: 'weft',
    label: 'weft',
    blockingNoop: 'noop_blocking',
    hasPool: true,
    command: (transport, port) => ({
      script: dist('./weft-server.js'),
      args: transportFlags(transport, port),
    }),
  },
  {
    // The cost of middleware: weft with one no-op middleware (`npm run bench -- --servers
    // weft,weft-middleware cheap-throughput`); never part of a default run.
    id: 'weft-middleware',
    label: 'weft + 1 no-op middleware',
    blockingNoop: 'noop_blocking',
    hasPool: true,
    onRequest: true,
    command: (transport, port) => ({
      script: dist('./weft-server.js'),
      args: [...transportFlags(transport, port), '--noop-middleware'],
    }),
  },
  { id: 'sdk', label: 'official SDK', hasPool: false, command: peer('sdk-server.js') },
  { id: 'fastmcp', label: 'FastMCP', hasPool: false, command: peer('fastmcp-server.js') },
  {
    id: 'sdk-piscina',
    label: 'SDK + Piscina',
    blockingNoop: 'noop_blocking',
    hasPool: true,
    command: peer('sdk-piscina-server.js'),
  },
];

/**
 * Not a peer: the bare thread hop (servers/thread-hop-floor.ts), run by dispatch-overhead beside the
 * others so that the report can say what a hop to another thread costs on this machine, in this run.
 */
export const FLOOR_SERVER: ServerSpec = {
  id: 'floor',
  label: 'bare thread hop',
  blockingNoop: 'noop_blocking',
  hasPool: true,
  command: (transport, port) => ({
    script: dist('./thread-hop-floor.js'),
    args: transportFlags(transport, port),
  }),
};

/**
 * The official SDK v2 (`createMcpHandler`, stateless), compared with weft only in the modern-HTTP
 * scenario: it is not in SERVERS, so the legacy scenarios stay as long as they were.
 */
export const SDK_V2_SERVER: ServerSpec = {
  id: 'sdk-v2',
  label: 'official SDK v2',
  hasPool: false,
  command: peer('sdk-v2-server.js'),
};

/**
 * Not a server at all: a bare Piscina pool driven in process (servers/bare-piscina-floor.ts), run by
 * blocking-throughput beside the pooled servers as the limit of handing trivial tasks to Piscina on
 * this machine, with no MCP around them. Started by load/bare-piscina-driver.ts, not as a server.
 */
export const BARE_PISCINA: ServerSpec = {
  id: 'bare-piscina',
  label: 'bare Piscina (no MCP)',
  hasPool: true,
  command: () => ({ script: dist('./bare-piscina-floor.js'), args: [] }),
};

/**
 * weft with blocking tools on `weft worker` processes, measured by the fleet scenario only. One
 * server process (servers/weft-fleet-server.ts) answers both the fleet's column and, for the same
 * tools placed locally, weft's: the fleet needs a Redis, which the scenario starts, so the command
 * is made per run by `fleetServerSpec`.
 */
export const WEFT_FLEET_SERVER: ServerSpec = {
  id: 'weft-fleet',
  label: 'weft on the fleet',
  hasPool: true,
  command: () => {
    throw new Error('the fleet server needs its Redis: start it with fleetServerSpec(redis, queue)');
  },
};

export const fleetServerSpec = (redis: string, queue: string): ServerSpec => ({
  ...WEFT_FLEET_SERVER,
  command: (transport, port) => ({
    script: dist('./weft-fleet-server.js'),
    args: [...transportFlags(transport, port), '--redis', redis, '--queue', queue],
  }),
});

/**
 * weft with `fairness: false` (first come, first served whoever calls), beside weft in the
 * noisy-neighbour scenario only: the same server, one option apart.
 */
export const WEFT_FIFO_SERVER: ServerSpec = {
  id: 'weft-fifo',
  label: 'weft, fairness off',
  blockingNoop: 'noop_blocking',
  hasPool: true,
  command: (transport, port) => ({
    script: dist('./weft-server.js'),
    args: [...transportFlags(transport, port), '--fairness', 'off'],
  }),
};

/** Every server a report may name, in the order of its columns. */
/**
 * The weft benchmark server protected by `oauthResourceServer` (modern-http-auth), trusting the
 * token issuer the run started and told its canonical URL (as behind a balancer).
 */
export function weftProtectedBy(issuer: string, audience: string): ServerSpec {
  const weft = SERVERS[0]!;
  return {
    ...weft,
    id: 'weft-auth',
    label: 'weft + oauthResourceServer',
    command: (transport, port) => {
      const { script, args } = weft.command(transport, port);
      return { script, args: [...args, '--issuer', issuer, '--audience', audience] };
    },
  };
}

/**
 * weft under each telemetry setup (servers/telemetry-server.ts), measured by telemetry-cost only:
 * `telemetry: false`, the API with no provider registered, and an SDK provider registered.
 */
const telemetryServer = (
  id: ServerId,
  label: string,
  setup: 'off' | 'none' | 'sdk' | 'sdk-sampled',
): ServerSpec => ({
  id,
  label,
  blockingNoop: 'noop_blocking',
  hasPool: true,
  command: (transport, port) => ({
    script: dist('./telemetry-server.js'),
    args: [...transportFlags(transport, port), '--telemetry', setup],
  }),
});

export const TELEMETRY_SERVERS: readonly ServerSpec[] = [
  telemetryServer('weft-telemetry-off', 'telemetry: false', 'off'),
  telemetryServer('weft-telemetry-none', 'no provider', 'none'),
  telemetryServer('weft-telemetry-sdk', 'SDK provider', 'sdk'),
  telemetryServer('weft-telemetry-sampled', 'SDK, 1% sampled', 'sdk-sampled'),
];

export const REPORTED_SERVERS: readonly ServerSpec[] = [
  SERVERS[0]!,
  weftProtectedBy('', ''),
  WEFT_FIFO_SERVER,
  ...SERVERS.slice(1),
  SDK_V2_SERVER,
  FLOOR_SERVER,
  BARE_PISCINA,
  WEFT_FLEET_SERVER,
  ...TELEMETRY_SERVERS,
];
