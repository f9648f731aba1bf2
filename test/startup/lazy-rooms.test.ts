/**
 * A plain stdio server (the demo's tools and the blocking fixtures, no auth, no HTTP, no mounts)
 * must not load what it does not use: the gateway and the client it drives, ws, jose,
 * OpenTelemetry (nothing registered a provider), the fleet and its Redis clients. Each is loaded at
 * its first use instead; every module they bring would otherwise be read and compiled at every
 * start of every desktop client's server. The server runs as a real process with a module counter preloaded that names every
 * module it loads, ES and CommonJS alike; it answers initialize and a blocking call before the
 * list is read.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const SERVER = fileURLToPath(new URL('../support/fixture-server.js', import.meta.url));
const COUNTER = fileURLToPath(new URL('../../benchmarks/load/module-counter.js', import.meta.url));

/** What a plain server must leave unloaded, by the path its modules load from. */
const LAZY_ROOMS: readonly [string, RegExp][] = [
  ['the gateway', /\/lib\/gateway\//],
  ['the client', /\/lib\/client\//],
  ['ws', /\/node_modules\/ws\//],
  ['jose', /\/node_modules\/jose\//],
  // With nothing registered (no global registry of the API), not even the API is loaded.
  ['OpenTelemetry', /\/node_modules\/@opentelemetry\//],
  ['the fleet', /\/lib\/fleet\//],
  ['bullmq', /\/node_modules\/bullmq\//],
  ['ioredis', /\/node_modules\/ioredis\//],
  ['the WebSocket transport', /\/lib\/transports\/websocket\.js/],
];

/**
 * Starts the server, initializes, calls a blocking tool (unless `initializeOnly`: then it waits
 * half a second after the answer instead), and returns every module it loaded.
 */
function modulesOfAPlainStart(initializeOnly = false): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', COUNTER, SERVER], { stdio: ['pipe', 'pipe', 'pipe'] });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the server did not answer in 20 s'));
    }, 20_000);
    let stderr = '';
    let stdout = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const modules = () =>
        stderr
          .split('\n')
          .filter((line) => line.startsWith('#module '))
          .map((line) => line.slice('#module '.length));
      if (initializeOnly && stdout.includes('"id":1')) {
        clearTimeout(timer);
        setTimeout(() => {
          child.kill('SIGKILL');
          resolve(modules());
        }, 500);
        return;
      }
      if (stdout.includes('"id":1') && !stdout.includes('"id":2')) {
        if (!child.stdin.writableEnded && !stdout.includes('sent-2')) {
          stdout += 'sent-2';
          child.stdin.write(
            `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n${JSON.stringify({
              jsonrpc: '2.0',
              id: 2,
              method: 'tools/call',
              params: { name: 'fib', arguments: { n: 3 } },
            })}\n`,
          );
        }
      } else if (stdout.includes('"id":2')) {
        clearTimeout(timer);
        assert.doesNotMatch(stdout, /"isError":true|"error":/, 'the blocking call was answered');
        // The answer is on stdout; give stderr one turn to deliver the module lines before it.
        setTimeout(() => {
          child.kill('SIGKILL');
          resolve(modules());
        }, 100);
      }
    });
    child.stdin.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      })}\n`,
    );
  });
}

describe('a plain stdio server', () => {
  it('does not load the lazy rooms it does not use', async () => {
    const modules = await modulesOfAPlainStart();
    assert.ok(
      modules.some((url) => url.includes('/lib/server.js')),
      `the counter saw the server load (saw ${modules.length} modules)`,
    );
    const loaded = LAZY_ROOMS.flatMap(([room, path]) => {
      const first = modules.find((url) => path.test(url));
      return first ? [`${room} (${first})`] : [];
    });
    assert.deepEqual(loaded, [], `loaded at start-up though unused: ${loaded.join(', ')}`);
  });

  it('answers initialize without loading Ajv: plainly valid schemas compile at their first use', async () => {
    const modules = await modulesOfAPlainStart(true);
    assert.ok(
      modules.some((url) => url.includes('/lib/server.js')),
      `the counter saw the server load (saw ${modules.length} modules)`,
    );
    const ajv = modules.filter((url) => /\/node_modules\/ajv(-formats)?\//.test(url));
    assert.deepEqual(ajv, [], `Ajv loaded before any call: ${ajv.slice(0, 3).join(', ')}`);
  });
});
