/**
 * Behind the recipe's HAProxy (examples/deploy/haproxy.cfg, run as is), each client is still a
 * caller of its own: HAProxy appends its address to X-Forwarded-For and the server, trusting that
 * proxy (`trustProxy`), counts fair shares by it. Before, every client had HAProxy's address, so
 * a client calling one at a time from 127.0.0.2 waited behind all of another client's calls.
 *
 * Skipped, saying why, without haproxy, unless WEFT_REQUIRE_HAPROXY=1.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { freePort, HAPROXY_CFG, haproxyBinary } from '../../examples/deploy/local-cluster.js';
import { McpServer } from '../../lib/index.js';
import { busy } from '../support/fixture-tools.js';
import { finishingOrder, modernClientFrom } from '../support/pool-sharing.js';

function haproxyMissing(): string | undefined {
  if (haproxyBinary()) return undefined;
  const why = "skipped: haproxy is not installed (Debian's haproxy package; .ci/run installs it)";
  if (process.env.WEFT_REQUIRE_HAPROXY === '1') throw new Error(`WEFT_REQUIRE_HAPROXY=1 but ${why}`);
  return why;
}

async function until(done: () => boolean | Promise<boolean>, what: string, withinMs = 15_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('client addresses behind the recipe HAProxy', { skip: haproxyMissing(), timeout: 60_000 }, () => {
  it('two anonymous clients on 127.0.0.1 and 127.0.0.2 are two callers: the one-at-a-time one is not queued behind the other', async () => {
    const seen = new Set<string | undefined>();
    const server = new McpServer({
      name: 'behind-haproxy',
      version: '1',
      pool: { maxThreads: 1 },
      trustProxy: ['127.0.0.1'],
      fairness: {
        key: (request) => {
          seen.add(request.caller);
          return undefined;
        },
      },
    }).tool(busy);
    await server.listen({ http: { port: 0 }, handleSignals: false });
    const replica = `127.0.0.1:${server.addresses.http!.port}`;
    const lbPort = await freePort();
    let balancer: ChildProcess | undefined;
    let output = '';
    const clients: Client[] = [];
    try {
      // The recipe's three backends all point at this one server.
      balancer = spawn(haproxyBinary()!, ['-db', '-f', HAPROXY_CFG], {
        env: {
          ...process.env,
          WEFT_LB_BIND: `127.0.0.1:${lbPort}`,
          // The recipe's suggested interval: a check also times out after it, and a loaded test
          // machine can take longer than 200 ms to answer /readyz.
          WEFT_CHECK_INTER_MS: '1000',
          WEFT_REPLICA_1: replica,
          WEFT_REPLICA_2: replica,
          WEFT_REPLICA_3: replica,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      balancer.stdout?.on('data', (chunk) => (output += chunk));
      balancer.stderr?.on('data', (chunk) => (output += chunk));
      const lb = `http://127.0.0.1:${lbPort}`;
      // Each of the three backends answers in turn (round-robin): ready once three in a row do.
      let answered = 0;
      await until(async () => {
        if (balancer?.exitCode !== null) throw new Error(`haproxy exited:\n${output}`);
        const ok = (await fetch(`${lb}/readyz`).catch(() => undefined))?.status === 200;
        answered = ok ? answered + 1 : 0;
        return answered >= 3;
      }, 'haproxy routes to the server');
      const heavy = await modernClientFrom(`${lb}/mcp`, '127.0.0.1');
      const light = await modernClientFrom(`${lb}/mcp`, '127.0.0.2');
      clients.push(heavy, light);
      const finished = await finishingOrder(server, heavy, light);
      assert.deepEqual([...seen].sort(), ['address 127.0.0.1', 'address 127.0.0.2']);
      const rank = finished.indexOf('light');
      assert.ok(rank <= 2, `the light caller finished ${rank + 1}th of 9: ${finished.join(', ')}`);
    } finally {
      for (const client of clients) await client.close();
      balancer?.kill();
      await server.close();
    }
  });
});
