/**
 * The deploy recipe's local cluster listens where it is told: HAProxy, the replicas and Redis on the
 * ports given by flags or by the environment, so it can run beside other servers (a port it cannot
 * have fails the start with the reason); a bad port is refused with the flag and variable to fix.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { clusterPorts } from '../../examples/deploy/local-cluster.js';
import { freePort } from '../support/free-port.js';
import { haproxyMissing } from '../support/haproxy-missing.js';
import { startReadyChild } from '../support/ready-child.js';
import { redisMissing } from '../support/redis-server.js';

const LOCAL_CLUSTER = fileURLToPath(new URL('../../examples/deploy/local-cluster.js', import.meta.url));

const answers = (port: number, path: string) =>
  fetch(`http://127.0.0.1:${port}${path}`).then(
    (response) => response.status,
    () => 0,
  );

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describe('local-cluster ports', () => {
  it('reads them from flags first, then from WEFT_LB_PORT, WEFT_REPLICA_PORTS and WEFT_REDIS_PORT', () => {
    const env = { WEFT_LB_PORT: '9000', WEFT_REPLICA_PORTS: '3000, 3001, 3002', WEFT_REDIS_PORT: '6390' };
    assert.deepEqual(clusterPorts([], env), {
      lbPort: 9000,
      replicaPorts: [3000, 3001, 3002],
      redisPort: 6390,
    });
    assert.deepEqual(clusterPorts(['--lb-port', '8080', '--replica-ports', '4000,4001,4002'], env), {
      lbPort: 8080,
      replicaPorts: [4000, 4001, 4002],
      redisPort: 6390,
    });
    assert.deepEqual(clusterPorts([], {}), {
      lbPort: undefined,
      replicaPorts: undefined,
      redisPort: undefined,
    });
    assert.throws(() => clusterPorts(['--lb-port', 'http'], {}), {
      message: '--lb-port (or WEFT_LB_PORT) must be a port from 1 to 65535, got "http"',
    });
    assert.throws(
      () => clusterPorts(['--replica-ports', '4000'], {}),
      /takes three ports, as haproxy\.cfg names three/,
    );
  });

  it('runs HAProxy, the replicas and Redis on the ports given, and frees them on Ctrl-C', {
    skip: haproxyMissing() ?? redisMissing(),
    timeout: 120_000,
  }, async () => {
    const [lb, redis, ...replicas] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const { child } = await startReadyChild(
      [LOCAL_CLUSTER, '--lb-port', String(lb), '--replica-ports', replicas.join(',')],
      {
        name: 'the local cluster',
        env: { WEFT_REDIS_PORT: String(redis) },
        ready: (output) => output.includes('Ctrl-C stops everything') || undefined,
        timeoutMs: 60_000,
      },
    );
    const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      assert.equal(await answers(lb, '/readyz'), 200, 'HAProxy on --lb-port');
      for (const port of replicas) assert.equal(await answers(port, '/readyz'), 200, `a replica on ${port}`);
      assert.ok(await accepts(redis), 'Redis on WEFT_REDIS_PORT');
    } finally {
      child.kill('SIGINT');
    }
    assert.equal(await exited, 0);
    for (const port of [lb, redis, ...replicas])
      assert.equal(await accepts(port), false, `${port} is free again`);
  });
});
