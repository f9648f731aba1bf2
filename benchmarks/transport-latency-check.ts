/**
 * The remote transports under CPU load, as a user sees them: the official SDK client over
 * Streamable HTTP and over WebSocket against the demo, `echo` latency while four `spin {ms: 100}`
 * calls keep running (sent by a second client, so they share nothing with the echo client).
 *
 *   npm run bench:transports
 *
 * Bounded: about 15 s, 127.0.0.1 only, the demo is stopped at the end.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { WebSocket } from 'ws';

const DEMO = fileURLToPath(new URL('../examples/demo-server.js', import.meta.url));
const SECONDS = 5;

// The SDK's WebSocket client uses the global WebSocket, which Node 20 lacks.
(globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;

// The SDK's HTTP client hands one AbortSignal to every fetch of a transport, and Node warns once
// per call past 1,500 listeners on it. That is the client's business, not the server's under test:
// such warnings are counted, not printed.
let clientListenerWarnings = 0;
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name === 'MaxListenersExceededWarning') clientListenerWarnings++;
  else process.stderr.write(`${warning.name}: ${warning.message}\n`);
});

function startDemo(): Promise<{ child: ChildProcess; http: URL; ws: URL }> {
  const child = spawn(process.execPath, [DEMO, '--http', '0', '--ws', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let said = '';
    child.once('exit', (code) => reject(new Error(`the demo exited (${code}): ${said}`)));
    child.stderr?.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      const http = /HTTP at (\S+)/.exec(said)?.[1];
      const ws = /WebSocket at (\S+)/.exec(said)?.[1];
      if (http && ws) resolve({ child, http: new URL(http), ws: new URL(ws) });
    });
  });
}

async function echoUnderSpins(makeTransport: () => Transport) {
  const client = new Client({ name: 'echo', version: '1.0.0' });
  const spinner = new Client({ name: 'spinner', version: '1.0.0' });
  await client.connect(makeTransport());
  await spinner.connect(makeTransport());
  for (let i = 0; i < 50; i++) await client.callTool({ name: 'echo', arguments: { text: 'warm-up' } });
  let running = true;
  const spinLoop = async () => {
    while (running) await spinner.callTool({ name: 'spin', arguments: { ms: 100 } });
  };
  const spinners = [spinLoop(), spinLoop(), spinLoop(), spinLoop()];
  await new Promise((resolve) => setTimeout(resolve, 200));
  const samples: number[] = [];
  const end = Date.now() + SECONDS * 1_000;
  while (Date.now() < end) {
    const sent = performance.now();
    await client.callTool({ name: 'echo', arguments: { text: 'ping' } });
    samples.push(performance.now() - sent);
  }
  running = false;
  await Promise.all(spinners);
  await Promise.all([client.close(), spinner.close()]);
  samples.sort((a, b) => a - b);
  const at = (q: number) =>
    Number((samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? 0).toFixed(2));
  return { echoes: samples.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1) };
}

const demo = await startDemo();
try {
  const http = await echoUnderSpins(() => new StreamableHTTPClientTransport(demo.http));
  const ws = await echoUnderSpins(() => new WebSocketClientTransport(demo.ws));
  process.stdout.write(
    `${JSON.stringify({ whileFourSpin100: { http, ws }, clientListenerWarnings }, null, 2)}\n`,
  );
} finally {
  demo.child.kill('SIGTERM');
}
