/**
 * A throwaway `redis-server` for tests: on a free port of 127.0.0.1, saving nothing to disk, killed
 * when the test ends. Never the machine's own Redis. When the binary is missing the tests that
 * need it skip, saying so, unless WEFT_REQUIRE_REDIS=1 (CI), where a missing Redis is a failure.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { freePort } from './free-port.js';

export interface RedisUnderTest {
  url: string;
  port: number;
  /** Its process, for tests that stall it (SIGSTOP: connections stay up, nothing is answered). */
  pid: number;
  stop(): Promise<void>;
}

/** Why Redis tests cannot run here, or undefined when they can. Throws under WEFT_REQUIRE_REDIS=1. */
export function redisMissing(): string | undefined {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (probe.status === 0) return undefined;
  const why =
    "skipped: redis-server is not on PATH (install Debian's redis-server package to run the Redis suites)";
  if (process.env.WEFT_REQUIRE_REDIS === '1') {
    throw new Error(`WEFT_REQUIRE_REDIS=1 but the Redis suites cannot run: ${why}`);
  }
  return why;
}

/** Starts one on a free port, or on `port` (a restart where a killed one listened, for outage tests). */
export async function startRedis(port?: number): Promise<RedisUnderTest> {
  port ??= await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--loglevel',
      'warning',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited at start: ${output}`);
    const ok = spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' });
    if (ok.stdout?.trim() === 'PONG') break;
    if (ok.error) {
      // No redis-cli: give the server a moment and trust it.
      await new Promise((resolve) => setTimeout(resolve, 300));
      break;
    }
    if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${port}: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: child.pid!,
    stop: () =>
      new Promise((resolve) => {
        // Killed already (a second stop): a killed child has a signalCode and no exitCode.
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}
