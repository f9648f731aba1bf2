/**
 * The `weft` command: `weft serve` over stdio and HTTP (with the Host names a balancer sends), and
 * `weft worker`'s refusals when it cannot serve (no Redis given, or none reachable).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '../support/free-port.js';
import { connectOverStdio } from '../support/sdk-stdio.js';

const CLI = fileURLToPath(new URL('../../lib/cli.js', import.meta.url));
const SERVED = fileURLToPath(new URL('../support/cli-served-server.js', import.meta.url));
const FLEET_TOOLS = fileURLToPath(new URL('../fleet/fleet-tools.js', import.meta.url));

/** POSTs an initialize to 127.0.0.1:port with the given Host header; resolves the HTTP status. */
function initializeWithHost(port: number, host: string): Promise<number> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: {
          host,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
      },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

describe('the weft command', () => {
  it('serves a module whose default export builds an McpServer, over stdio', async () => {
    const session = await connectOverStdio(CLI, ['serve', SERVED, '--stdio']);
    try {
      assert.equal(session.client.getServerVersion()?.name, 'served-by-cli');
      const result = await session.client.callTool({ name: 'hello', arguments: { name: 'weft' } });
      assert.deepEqual(result.content, [{ type: 'text', text: 'hello, weft' }]);
    } finally {
      await session.close();
    }
  });

  it('says which flags give a transport, and exits 2, when none is given', () => {
    const run = spawnSync(process.execPath, [CLI, 'serve', SERVED], { encoding: 'utf8' });
    assert.equal(run.status, 2);
    assert.equal(
      run.stderr,
      'weft: weft serve needs a transport: add --stdio (for a client that starts the server), ' +
        '--http PORT (Streamable HTTP), or --ws PORT (WebSocket)\n',
    );
  });

  it('serves HTTP to the Host names --allowed-hosts lists, and refuses others', async () => {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [CLI, 'serve', SERVED, '--http', String(port), '--allowed-hosts', 'mcp.example.test'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    try {
      let status = 0;
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        status = await initializeWithHost(port, 'mcp.example.test').catch(() => 0);
        if (status !== 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(status, 200, 'a listed Host is served');
      assert.equal(await initializeWithHost(port, 'other.example.test'), 403, 'an unlisted Host is refused');
      assert.equal(await initializeWithHost(port, `127.0.0.1:${port}`), 200, 'the machine itself still is');
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('weft worker explains its usage and exits 2 without --redis', () => {
    const run = spawnSync(process.execPath, [CLI, 'worker', FLEET_TOOLS], { encoding: 'utf8' });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /usage: weft worker <module.js> --redis URL/);
  });

  it('weft worker exits 1 naming the Redis it cannot reach', () => {
    const run = spawnSync(process.execPath, [CLI, 'worker', FLEET_TOOLS, '--redis', 'redis://127.0.0.1:1'], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stderr, /cannot reach Redis at redis:\/\/127\.0\.0\.1:1/);
  });
});
