/**
 * The processes a fleet scenario needs beside its server: a throwaway `redis-server` (a free port
 * of 127.0.0.1, nothing saved to disk, never the machine's own Redis) and `weft worker`
 * processes serving a queue on it. Each is stopped by the scenario that started it, and killed
 * when the runner exits in any other way, so none outlives a benchmark.
 *
 * test/support/redis-server.ts does the same for the tests; benchmarks import nothing from test/,
 * so this is the benchmarks' own, waiting for Redis's own "ready" line instead of redis-cli.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../test/support/free-port.js';
import { serverNodeFlags } from './server-process.js';

const READY_TIMEOUT_MS = 20_000;
const CLI = fileURLToPath(new URL('../../lib/cli.js', import.meta.url));
const running = new Set<ChildProcess>();

process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface HelperProcess {
  pid: number;
  /** SIGTERM, SIGKILL after `graceMs`, and resolves once the process has exited. */
  stop(graceMs?: number): Promise<void>;
}

export interface ThrowawayRedis extends HelperProcess {
  url: string;
}

/** Why a fleet cannot be benchmarked here, or undefined when it can. */
export function redisServerMissing(): string | undefined {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  return probe.status === 0
    ? undefined
    : "skipped: redis-server is not on PATH (install Debian's redis-server package to benchmark the fleet)";
}

export async function startThrowawayRedis(): Promise<ThrowawayRedis> {
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const child = await startUntil('redis-server', args, 'stdout', /Ready to accept connections/);
  return { ...child, url: `redis://127.0.0.1:${port}` };
}

/** `weft worker <module> --redis URL --queue NAME --threads N`, resolved once it serves. */
export function startFleetWorker(
  module: string,
  options: { redis: string; queue: string; threads: number },
): Promise<HelperProcess> {
  const args = [...serverNodeFlags(), CLI, 'worker', module];
  args.push('--redis', options.redis, '--queue', options.queue, '--threads', String(options.threads));
  return startUntil(process.execPath, args, 'stderr', /weft worker: serving queue/);
}

/** Starts `command` and resolves when `ready` appears on `stream`; rejects with its output if it exits first. */
function startUntil(
  command: string,
  args: string[],
  stream: 'stdout' | 'stderr',
  ready: RegExp,
): Promise<HelperProcess> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let output = '';
  const stop = (graceMs = 3_000) => stopChild(child, graceMs);
  return new Promise<HelperProcess>((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop(0);
      reject(new Error(`${command} ${args.join(' ')} not ready in ${READY_TIMEOUT_MS} ms: ${output.trim()}`));
    }, READY_TIMEOUT_MS);
    const read = (from: 'stdout' | 'stderr') => (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-4000);
      if (from === stream && ready.test(output)) {
        clearTimeout(timer);
        resolve({ pid: child.pid!, stop });
      }
    };
    child.stdout!.on('data', read('stdout'));
    child.stderr!.on('data', read('stderr'));
    child.once('error', (error) => {
      clearTimeout(timer);
      running.delete(child);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      running.delete(child);
      clearTimeout(timer);
      reject(
        new Error(`${command} exited before it was ready (code ${code}, signal ${signal}): ${output.trim()}`),
      );
    });
  });
}

async function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(graceMs > 0 ? 'SIGTERM' : 'SIGKILL');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await gone;
  clearTimeout(timer);
  running.delete(child);
}
