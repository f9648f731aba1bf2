/**
 * What a readiness probe costs a replica: `GET /readyz` on a weft server's MCP listener, next to
 * the same request answered by a bare `node:http` server with a fixed 200 in this same process
 * (the floor: parsing and writing an HTTP exchange), alternating short rounds so both see the same
 * machine load; and the probe's own work, the readiness answer and its reply written to a stub
 * response, with no socket at all. Probes run one at a time over one keep-alive connection, as a
 * balancer's checker does.
 *
 *   node dist/benchmarks/health-probe-cost.js
 *
 * Bounded: about 2 x ROUNDS x PROBES probes (a few seconds), 127.0.0.1 only, both servers stopped.
 */
import { Agent, createServer, get, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HealthRoutes } from '../lib/health/health-routes.js';
import { Readiness } from '../lib/health/readiness.js';
import { McpServer } from '../lib/index.js';

const ROUNDS = 5;
const PROBES = 2_000;
const IN_PROCESS = 200_000;

function probeOnce(agent: Agent, port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path, agent }, (response) => {
      response.resume();
      response.once('end', () => resolve(response.statusCode ?? 0));
    }).once('error', reject);
  });
}

/** Microseconds per probe, sequential over one keep-alive connection. */
async function round(port: number, path: string): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const start = process.hrtime.bigint();
  for (let i = 0; i < PROBES; i++) {
    const status = await probeOnce(agent, port, path);
    if (status !== 200) throw new Error(`${path} answered ${status}`);
  }
  const us = Number(process.hrtime.bigint() - start) / 1_000 / PROBES;
  agent.destroy();
  return us;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const weft = new McpServer({ name: 'probe-cost', version: '1.0.0', pool: { maxThreads: 1 } });
await weft.listen({ http: { port: 0 }, handleSignals: false });
const bare = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ready"}');
});
await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
const weftPort = weft.addresses.http!.port;
const barePort = (bare.address() as AddressInfo).port;

try {
  await round(weftPort, '/readyz');
  await round(barePort, '/');
  const weftRounds: number[] = [];
  const bareRounds: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    weftRounds.push(await round(weftPort, '/readyz'));
    bareRounds.push(await round(barePort, '/'));
  }
  // The probe's own work: the answer computed and written to a response that sends nothing.
  const readiness = new Readiness();
  readiness.enter('ready');
  readiness.addCheck({ problem: () => undefined });
  const routes = new HealthRoutes({ livePath: '/healthz', readyPath: '/readyz' }, readiness);
  const request = { method: 'GET' } as IncomingMessage;
  const stub = { writeHead: () => stub, end: () => stub } as unknown as ServerResponse;
  const start = process.hrtime.bigint();
  for (let i = 0; i < IN_PROCESS; i++) routes.serve('/readyz', request, stub);
  const ownNs = Number(process.hrtime.bigint() - start) / IN_PROCESS;
  const w = median(weftRounds);
  const b = median(bareRounds);
  process.stdout.write(
    `GET /readyz over keep-alive, one at a time (median of ${ROUNDS} rounds of ${PROBES}):\n` +
      `  weft MCP listener  ${w.toFixed(1)} us/probe\n` +
      `  bare node:http     ${b.toFixed(1)} us/probe (the floor)\n` +
      `  weft over floor    ${(w - b).toFixed(1)} us/probe\n` +
      `  readiness answer + reply, no socket: ${ownNs.toFixed(0)} ns/probe\n`,
  );
} finally {
  await weft.close();
  await new Promise((resolve) => bare.close(resolve));
}
