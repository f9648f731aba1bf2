/**
 * What a weft gateway costs per call: `echo` latency (p50 / p99) from weft/client over Streamable
 * HTTP, straight to the demo server and through a gateway process that mounts it, measured in one
 * run, alternating short rounds so both sides see the same machine load. Both eras.
 *
 *   npm run bench:gateway
 *
 * Bounded: about 4 x ROUNDS x ROUND_MS of calls (about 20 s), 127.0.0.1 only, both servers stopped
 * at the end.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { connect, type McpClient } from '../lib/client/index.js';

const DEMO = fileURLToPath(new URL('../examples/demo-server.js', import.meta.url));
const GATEWAY = fileURLToPath(new URL('./servers/gateway-server.js', import.meta.url));
const ROUNDS = 5;
const ROUND_MS = 1_000;

function start(file: string, args: string[], pattern: RegExp): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [file, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let said = '';
    child.once('exit', (code) => reject(new Error(`${file} exited (${code}): ${said}`)));
    child.stderr?.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      const url = pattern.exec(said)?.[1];
      if (url) resolve({ child, url });
    });
  });
}

async function round(client: McpClient, samples: number[]): Promise<void> {
  const end = performance.now() + ROUND_MS;
  while (performance.now() < end) {
    const sent = performance.now();
    await client.callTool('echo', { text: 'ping' });
    samples.push(performance.now() - sent);
  }
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;

const demo = await start(DEMO, ['--http', '0'], /HTTP at (\S+)/);
const gateway = await start(GATEWAY, [demo.url], /gateway at (\S+)/);
try {
  console.log(
    `gateway overhead: echo over Streamable HTTP, ${ROUNDS} alternating rounds of ${ROUND_MS} ms per side`,
  );
  console.log('era     path      calls    p50 ms   p99 ms');
  for (const protocol of ['modern', 'legacy'] as const) {
    const direct = await connect(demo.url, { protocol });
    const through = await connect(gateway.url, { protocol });
    for (let i = 0; i < 100; i++) {
      await direct.callTool('echo', { text: 'warm-up' });
      await through.callTool('echo', { text: 'warm-up' });
    }
    const samples = { direct: [] as number[], gateway: [] as number[] };
    for (let i = 0; i < ROUNDS; i++) {
      await round(direct, samples.direct);
      await round(through, samples.gateway);
    }
    for (const [path, values] of Object.entries(samples)) {
      const sorted = [...values].sort((a, b) => a - b);
      console.log(
        `${protocol.padEnd(8)}${path.padEnd(10)}${String(sorted.length).padStart(5)}  ${percentile(sorted, 0.5).toFixed(3).padStart(8)} ${percentile(sorted, 0.99).toFixed(3).padStart(8)}`,
      );
    }
    await direct.close();
    await through.close();
  }
} finally {
  gateway.child.kill();
  demo.child.kill();
}
