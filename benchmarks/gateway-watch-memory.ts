/**
 * What a gateway's `maxWatchedUris` bound costs at its cap: a mount of a real upstream process,
 * one subscriber (its own process, so its objects are not in this heap) naming 1,000 URIs under
 * the mounted template, then 200 more (refused), then leaving. The gateway runs in this process;
 * its heap is read after a full collection with nobody watching, at the cap, and after the
 * subscriber left, beside its open descriptors (each upstream listen stream is a socket).
 * Run for a modern-era upstream (one upstream listen stream per URI) and a legacy one (one
 * `resources/subscribe` per URI on the mount's session).
 *
 * `node --expose-gc dist/benchmarks/gateway-watch-memory.js`: about half a minute.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULT_MAX_WATCHED_URIS } from '../lib/gateway/upstream-subscriptions.js';
import { McpServer } from '../lib/index.js';
import { killed, startUpstream } from '../test/gateway/restartable-process.js';
import { freePort } from '../test/support/free-port.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const MB = 1024 * 1024;
const CLIENT = fileURLToPath(new URL('../lib/client/index.js', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function heap(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc!();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

/** The heap once two readings a second apart agree within 64 kB (streams still opening settle). */
async function settledHeap(): Promise<number> {
  let last = await heap();
  for (let i = 0; i < 20; i++) {
    await sleep(1000);
    const now = await heap();
    if (Math.abs(now - last) < 64 * 1024) return now;
    last = now;
  }
  return last;
}

const descriptors = () => readdirSync('/proc/self/fd').length;

/**
 * The subscriber, as a process: watches URIs 1..cap in one go (modern: one listen stream; legacy:
 * one `resources/subscribe` each), then `extra` more, prints what happened as one JSON line, and
 * holds on until its stdin ends, then leaves as a client does.
 */
function subscriber(url: string, era: 'modern' | 'legacy', cap: number, extra: number): ChildProcess {
  const script = `
    import { connect } from ${JSON.stringify(CLIENT)};
    const client = await connect(${JSON.stringify(url)}, { protocol: ${JSON.stringify(era)} });
    const uris = (from, to) => Array.from({ length: to - from }, (_, i) => 'up+item://' + (from + i));
    const held = new AbortController();
    let refused = 0;
    if (${JSON.stringify(era)} === 'modern') {
      await client.listen({ resourceSubscriptions: uris(0, ${cap}) }, { signal: held.signal });
      for (const uri of uris(${cap}, ${cap + extra})) {
        await client.listen({ resourceSubscriptions: [uri] }, { signal: new AbortController().signal })
          .catch((error) => { if (error.code === -32013) refused++; else throw error; });
      }
    } else {
      for (const uri of uris(0, ${cap})) await client.subscribeResource(uri);
      for (const uri of uris(${cap}, ${cap + extra})) {
        await client.subscribeResource(uri)
          .catch((error) => { if (error.code === -32013) refused++; else throw error; });
      }
    }
    process.stdout.write(JSON.stringify({ refused }) + '\\n');
    // Leaves as a client does: its stream ended, its session closed (legacy: DELETE).
    process.stdin.resume();
    process.stdin.once('end', async () => {
      held.abort();
      await client.close();
      process.exit(0);
    });
  `;
  return spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    child.once('exit', (code) => reject(new Error(`the subscriber exited with ${code}`)));
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const end = output.indexOf('\n');
      if (end !== -1) resolve(output.slice(0, end));
    });
  });
}

const cap = DEFAULT_MAX_WATCHED_URIS;
const extra = 200;
const rounds = 3;
console.log(
  `| upstream era, round | nobody watching | ${cap.toLocaleString('en')} URIs watched (cap) | per URI | after the subscriber left | descriptors (idle / at cap / after) | watched (at cap / after) | refused past the cap |`,
);
console.log('| --- | ---: | ---: | ---: | ---: | --- | --- | ---: |');
for (const era of ['modern', 'legacy'] as const) {
  const upstreamPort = await freePort();
  const upstream = await startUpstream(upstreamPort, 'before');
  const gateway = new McpServer({ name: 'gateway', version: '1', logError: () => {} });
  const mounted = await gateway.mount(`http://127.0.0.1:${upstreamPort}/mcp`, {
    namespace: 'up',
    protocol: era,
  });
  await gateway.listen({ http: { port: 0, host: '127.0.0.1' }, handleSignals: false });
  const url = `http://127.0.0.1:${gateway.addresses.http?.port}/mcp`;
  // Rounds on the same gateway: a table that kept something per subscriber would grow round by round.
  for (let round = 1; round <= rounds; round++) {
    const idle = await settledHeap();
    const idleFds = descriptors();
    const child = subscriber(url, era, cap, extra);
    const { refused } = JSON.parse(await firstLine(child)) as { refused: number };
    const atCap = await settledHeap();
    const capFds = descriptors();
    const watchedAtCap = mounted.watchedUris;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.stdin!.end();
    await exited;
    // Aborted upstream streams leave their sockets to the fetch pool's keep-alive (a few seconds).
    await sleep(6000);
    const left = await settledHeap();
    const mb = (bytes: number) => (bytes / MB).toFixed(1);
    console.log(
      `| ${era}, ${round} | ${mb(idle)} MB | ${mb(atCap)} MB (+${mb(atCap - idle)}) | ${((atCap - idle) / cap / 1024).toFixed(1)} kB | ${mb(left)} MB | ${idleFds} / ${capFds} / ${descriptors()} | ${watchedAtCap} / ${mounted.watchedUris} | ${refused} of ${extra} |`,
    );
  }
  await gateway.close();
  await killed(upstream);
}
process.exit(0);
