#!/usr/bin/env node
/**
 * The conformance suites' second target: a weft server with no tools of its own that mounts the
 * conformance server (conformance-server.ts) without a namespace, so that every tool call the
 * suites make crosses the gateway. `PORT=N node dist/examples/conformance-gateway.js` serves it at
 * http://127.0.0.1:N/mcp; `npm run conformance` runs both suites against it after the direct pass.
 *
 * The upstream is spawned as a command and spoken to over stdio, not mounted in-process: that way
 * each call really crosses a process boundary and a serialization (nothing is shared by reference),
 * the upstream's cancel arrives as its era's own message, the upstream's blocking tools run on the
 * upstream's worker pool, and the era the gateway speaks upstream (probed: 2026-07-28) differs from
 * what the legacy suite speaks to the gateway, so the era bridge is exercised too.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpServer } from '../lib/index.js';

const port = Number(process.env.PORT ?? 3001);
const upstreamEntry = join(dirname(fileURLToPath(import.meta.url)), 'conformance-server.js');

const gateway = new McpServer({ name: 'weft-conformance-gateway', version: '0.1.0', timeoutMs: 30_000 });
await gateway.mount({ command: process.execPath, args: [upstreamEntry, '--stdio'] });

await gateway.listen({
  http: {
    port,
    retryMs: 500,
    // The same stream cut as the direct server's: test_reconnection's client resumes with Last-Event-ID.
    pollAfterMs: (request) =>
      request.method === 'tools/call' && request.params?.name === 'test_reconnection' ? 100 : undefined,
  },
});
process.stderr.write(
  `weft conformance server: gateway at http://127.0.0.1:${gateway.addresses.http?.port}/mcp\n`,
);
