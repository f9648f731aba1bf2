#!/usr/bin/env node
/**
 * The weft server of the fleet scenario: the tools of fleet-tools.ts, half placed on the fleet
 * whose Redis and queue it is given, half on its own pool. Takes the peers' flags (--stdio,
 * --http PORT, --threads N) plus `--redis URL --queue NAME`, which the scenario passes after
 * starting its own throwaway redis-server.
 */
import { McpServer } from '../../lib/index.js';
import { readPeerOptions } from '../peers/peer-options.js';
import * as fleetTools from './fleet-tools.js';

const argv = process.argv.slice(2);
const redis = takeFlag(argv, '--redis');
const queue = takeFlag(argv, '--queue');
if (redis === undefined || queue === undefined) {
  process.stderr.write('weft-fleet-server needs --redis URL --queue NAME\n');
  process.exit(2);
}
const options = readPeerOptions(argv);

const server = new McpServer({
  name: 'weft-fleet-bench',
  version: '0.1.0',
  // Short enough that a call stuck on the fleet costs the run seconds, not minutes; every call here takes ms.
  timeoutMs: 10_000,
  // Nice 0 like a worker's threads (weft worker's default), so the two columns differ only by placement.
  pool: { niceIncrement: 0, ...(options.threads === undefined ? {} : { maxThreads: options.threads }) },
  fleet: { redis, queue },
});
for (const tool of Object.values(fleetTools)) server.tool(tool);

await server.listen({
  stdio: options.stdio,
  ...(options.httpPort === undefined ? {} : { http: { port: options.httpPort, host: '127.0.0.1' } }),
});

/** Removes `flag VALUE` from `argv` (what is left are the peers' flags) and returns VALUE. */
function takeFlag(argv: string[], flag: string): string | undefined {
  const index = argv.indexOf(flag);
  if (index < 0) return undefined;
  return argv.splice(index, 2)[1];
}
