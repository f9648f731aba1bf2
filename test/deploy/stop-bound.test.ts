/**
 * A stop always ends: SIGTERM ends the process within the documented bound (shutdownBoundMs: the
 * grace, then each step of the stop cut at its deadline) and exits 0, even with a half-open request
 * held on every listener (Streamable HTTP, WebSocket on its own port, the probes' port) and with the
 * task store's Redis stalled (SIGSTOP: its connections up, nothing answered).
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { shutdownBoundMs } from '../../lib/server-shutdown.js';
import { startReadyChild } from '../support/ready-child.js';
import { type RedisUnderTest, redisMissing, startRedis } from '../support/redis-server.js';

const SERVER = fileURLToPath(new URL('./stop-bound-server.js', import.meta.url));
const GRACE_MS = 500;
const BOUND_MS = shutdownBoundMs({ shutdownGraceMs: GRACE_MS });

interface Ports {
  http: number;
  ws: number;
  health: number;
}

async function startServer(args: string[] = []) {
  const started = await startReadyChild([SERVER, '--shutdown-grace-ms', String(GRACE_MS), ...args], {
    name: 'the stop-bound server',
    ready: (output) => /stop-bound-server: (\{.*\})/.exec(output),
  });
  return { ...started, ports: JSON.parse(started.ready[1]!) as Ports };
}

/** Opens a connection that sends the start of a request and never the rest. */
function halfOpenRequest(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
      resolve(socket);
    });
    socket.on('error', () => {});
    socket.once('error', reject);
  });
}

/** SIGTERM, then how the child ended and when; a child still up well past the bound is killed. */
async function stopWithin(child: ChildProcess, waitMs: number) {
  const started = Date.now();
  const exited = new Promise<{ code: number | null; ms: number }>((resolve) =>
    child.once('exit', (code) => resolve({ code, ms: Date.now() - started })),
  );
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), waitMs);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
  }
}

describe('a stop always ends', () => {
  test('SIGTERM with a half-open request on every listener exits 0 within the bound', async () => {
    const { child, ports, output } = await startServer();
    const sockets = await Promise.all([ports.http, ports.ws, ports.health].map(halfOpenRequest));
    try {
      const { code, ms } = await stopWithin(child, BOUND_MS + 5_000);
      assert.ok(ms <= BOUND_MS, `exited after ${ms} ms; the bound is ${BOUND_MS} ms\n${output()}`);
      assert.equal(code, 0, `a graceful stop exits 0 (1 is the hard stop):\n${output()}`);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });

  const missing = redisMissing();
  describe('with the task store on Redis', { skip: missing }, () => {
    let redis: RedisUnderTest | undefined;
    after(async () => {
      if (redis) process.kill(redis.pid, 'SIGCONT');
      await redis?.stop();
    });

    test('SIGTERM while Redis is stalled (connections up, no answers) exits 0 within the bound', async () => {
      redis = await startRedis();
      const { child, output } = await startServer(['--redis', redis.url]);
      process.kill(redis.pid, 'SIGSTOP');
      const { code, ms } = await stopWithin(child, BOUND_MS + 5_000);
      process.kill(redis.pid, 'SIGCONT');
      assert.ok(ms <= BOUND_MS, `exited after ${ms} ms; the bound is ${BOUND_MS} ms\n${output()}`);
      assert.equal(code, 0, `a graceful stop exits 0 (1 is the hard stop):\n${output()}`);
      assert.match(output(), /the task store did not close within/);
    });
  });
});
