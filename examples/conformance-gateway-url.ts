#!/usr/bin/env node
/**
 * The conformance suites' third target: the same gateway as conformance-gateway.ts, but mounting the
 * conformance server by URL, so every call crosses a Streamable HTTP hop. That hop carries what the
 * stdio one does not: the `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` headers a modern HTTP client
 * must send (the gateway mirrors each tool's `x-mcp-header` arguments from the upstream's own
 * listing), and legacy sessions the upstream may lose. `PORT=N node dist/examples/conformance-gateway-url.js`
 * starts the conformance server on a free port as a child process, then serves the gateway at
 * http://127.0.0.1:N/mcp.
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpServer } from '../lib/index.js';

const port = Number(process.env.PORT ?? 3001);
const upstreamEntry = join(dirname(fileURLToPath(import.meta.url)), 'conformance-server.js');

/** Starts the conformance server on a port of its choosing; resolves with its URL once it listens. */
function startUpstream(): Promise<string> {
  const child = spawn(process.execPath, [upstreamEntry], {
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  // The upstream lives and dies with the gateway.
  process.once('exit', () => child.kill('SIGTERM'));
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      child.kill('SIGTERM');
      process.exit(0);
    });
  }
  return new Promise((resolve, reject) => {
    let output = '';
    child.once('exit', (code) => reject(new Error(`the conformance server exited with ${code}:\n${output}`)));
    let announced = false;
    child.stderr.on('data', (chunk) => {
      if (announced) return; // kept draining, not kept
      output += chunk;
      const url = /weft conformance server: .*?(http:\/\/\S+\/mcp)/.exec(output)?.[1];
      if (url) {
        announced = true;
        resolve(url);
      }
    });
  });
}

const gateway = new McpServer({ name: 'weft-conformance-gateway-url', version: '0.1.0', timeoutMs: 30_000 });
await gateway.mount(await startUpstream(), { label: 'conformance' });

await gateway.listen({
  http: {
    port,
    retryMs: 500,
    pollAfterMs: (request) =>
      request.method === 'tools/call' && request.params?.name === 'test_reconnection' ? 100 : undefined,
  },
  handleSignals: false,
});
process.stderr.write(
  `weft conformance server: gateway by URL at http://127.0.0.1:${gateway.addresses.http?.port}/mcp\n`,
);
