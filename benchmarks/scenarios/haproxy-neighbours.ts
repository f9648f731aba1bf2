/**
 * haproxy-neighbours: modern-neighbours behind the deployment recipe's HAProxy
 * (examples/deploy/haproxy.cfg, run as is, its three backends all pointed at the one server). A
 * (32 `spin {ms: 50}` in flight) connects to HAProxy from 127.0.0.1, B (one at a time) from
 * 127.0.0.2; HAProxy appends each client's address to X-Forwarded-For, and weft, told to trust that
 * proxy (`trustProxy`), tells A and B apart by it. Without that every client has HAProxy's address
 * and B is just more of A. Runs only where haproxy is installed (a note says so otherwise).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { freePort, HAPROXY_CFG, haproxyBinary } from '../../examples/deploy/local-cluster.js';
import { LoadClient } from '../load/load-client.js';
import { ModernHttpWire } from '../load/modern-http-wire.js';
import { type ServerSpec, WEFT_FIFO_SERVER } from '../servers/server-catalog.js';
import type { RunningServer } from '../servers/server-process.js';
import { type Neighbours, neighbours } from './noisy-neighbour.js';
import type { Scenario } from './scenario.js';

/** The weft servers (fair and first come, first served), trusting the proxy on this machine. */
function behindProxy(servers: readonly ServerSpec[]): ServerSpec[] {
  if (!haproxyBinary()) return [];
  const weft = servers.filter((spec) => spec.id === 'weft');
  return (weft.length > 0 ? [...weft, WEFT_FIFO_SERVER] : []).map((spec) => ({
    ...spec,
    command: (transport, port) => {
      const { script, args } = spec.command(transport, port);
      return { script, args: [...args, '--trust-proxy', '127.0.0.1'] };
    },
  }));
}

/** Starts the recipe's HAProxy in front of `server`; resolves once it routes to every backend. */
async function startProxy(server: RunningServer): Promise<{ port: number; stop(): void }> {
  const port = await freePort();
  const replica = `127.0.0.1:${server.port}`;
  const balancer: ChildProcess = spawn(haproxyBinary()!, ['-db', '-f', HAPROXY_CFG], {
    env: {
      ...process.env,
      WEFT_LB_BIND: `127.0.0.1:${port}`,
      WEFT_CHECK_INTER_MS: '1000',
      WEFT_REPLICA_1: replica,
      WEFT_REPLICA_2: replica,
      WEFT_REPLICA_3: replica,
    },
    stdio: 'ignore',
  });
  const stop = () => balancer.kill();
  // Round-robin over three backends: ready once three answers in a row are 200.
  let answered = 0;
  const deadline = Date.now() + 15_000;
  while (answered < 3) {
    if (balancer.exitCode !== null || Date.now() > deadline) {
      stop();
      throw new Error(`haproxy did not route to the server within 15 s (exit ${balancer.exitCode})`);
    }
    const ok = (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200;
    answered = ok ? answered + 1 : 0;
    if (!ok) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { port, stop };
}

export const haproxyNeighbours: Scenario = neighbours(
  'haproxy-neighbours',
  'modern-http',
  async (server): Promise<Neighbours> => {
    const proxy = await startProxy(server);
    const a = new LoadClient(new ModernHttpWire(proxy.port, {}, { localAddress: '127.0.0.1' }));
    const b = new LoadClient(new ModernHttpWire(proxy.port, {}, { localAddress: '127.0.0.2' }));
    return {
      a,
      b,
      async close() {
        await Promise.all([a.close(), b.close()]);
        proxy.stop();
      },
    };
  },
  behindProxy,
);
