/**
 * A throwaway fleet on loopback for the fleet suites: one real redis-server, router replicas
 * (test/fleet/fleet-router.ts) and `weft worker` processes serving test/fleet/fleet-tools.ts, each
 * a child process the test can SIGKILL, SIGTERM, restart, and watch the CPU of (from /proc). Every
 * process is started only once it has printed its ready line, so a suite starts from a fleet
 * that serves; `stop()` kills whatever is still alive, including processes the test restarted.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cpuOver } from '../support/cpu-ticks.js';
import { type RedisUnderTest, startRedis } from '../support/redis-server.js';

const ROUTER_SCRIPT = fileURLToPath(new URL('./fleet-router.js', import.meta.url));
const TOOLS_MODULE = fileURLToPath(new URL('./fleet-tools.js', import.meta.url));
const CLI = fileURLToPath(new URL('../../lib/cli.js', import.meta.url));
/** The workers' BullMQ lock: a killed worker's call ends within this plus the routers' 250 ms check. */
export const LOCK_MS = 1_500;
const READY_WITHIN_MS = 20_000;

export interface FleetProcess {
  readonly role: 'router' | 'worker';
  readonly child: ChildProcess;
  readonly pid: number;
  /** The router's MCP endpoint (routers only). */
  readonly url: URL;
  /** Everything it wrote on stderr so far, for failure messages. */
  readonly output: () => string;
  readonly alive: () => boolean;
  /** Sends `signal` and resolves once the process has exited. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export interface FleetClusterOptions {
  routers: number;
  workers: number;
  queue?: string;
  /** Extra environment for the routers (TIMEOUT_MS, LEASE_MS...). */
  routerEnv?: Record<string, string>;
}

function startProcess(
  role: FleetProcess['role'],
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<FleetProcess> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  const alive = () => child.exitCode === null && child.signalCode === null;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the fleet ${role} did not get ready within ${READY_WITHIN_MS} ms:\n${output}`));
    }, READY_WITHIN_MS);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the fleet ${role} exited (${code ?? signal}) before it was ready:\n${output}`));
    });
    child.stderr!.on('data', (chunk) => {
      const wasReady = ready.test(output);
      output += chunk;
      const match = ready.exec(output);
      if (wasReady || !match) return;
      clearTimeout(timer);
      resolve({
        role,
        child,
        pid: child.pid!,
        url: new URL(match[1] ?? 'http://unused.invalid/'),
        output: () => output,
        alive,
        kill: async (signal = 'SIGKILL') => {
          if (alive()) child.kill(signal);
          await exited;
        },
      });
    });
  });
}

export class FleetCluster {
  readonly routers: FleetProcess[] = [];
  readonly workers: FleetProcess[] = [];
  readonly queue: string;
  #redis: RedisUnderTest;
  readonly #routerEnv: Record<string, string>;
  /** Every process ever started, so that stop() also ends the restarted ones. */
  readonly #started: FleetProcess[] = [];

  private constructor(redis: RedisUnderTest, queue: string, routerEnv: Record<string, string>) {
    this.#redis = redis;
    this.queue = queue;
    this.#routerEnv = routerEnv;
  }

  static async start(options: FleetClusterOptions): Promise<FleetCluster> {
    const redis = await startRedis();
    const cluster = new FleetCluster(redis, options.queue ?? 'weft-test', options.routerEnv ?? {});
    try {
      // Workers first: a router's first call then finds someone serving the queue.
      await Promise.all(Array.from({ length: options.workers }, () => cluster.startWorker()));
      await Promise.all(Array.from({ length: options.routers }, () => cluster.startRouter()));
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  get redis(): RedisUnderTest {
    return this.#redis;
  }

  async startRouter(): Promise<FleetProcess> {
    const router = await startProcess(
      'router',
      [ROUTER_SCRIPT],
      { REDIS_URL: this.#redis.url, QUEUE: this.queue, ...this.#routerEnv },
      /fleet router: (\S+)/,
    );
    this.#started.push(router);
    this.routers.push(router);
    return router;
  }

  async startWorker(): Promise<FleetProcess> {
    const args = [CLI, 'worker', TOOLS_MODULE, '--redis', this.#redis.url, '--queue', this.queue];
    args.push('--threads', '1', '--lock-ms', String(LOCK_MS), '--grace-ms', '50');
    const worker = await startProcess('worker', args, {}, /weft worker: serving queue/);
    this.#started.push(worker);
    this.workers.push(worker);
    return worker;
  }

  /** Kills `worker` and starts another in its place (same slot in `workers`). */
  async replaceWorker(worker: FleetProcess): Promise<FleetProcess> {
    await worker.kill('SIGKILL');
    const index = this.workers.indexOf(worker);
    const fresh = await this.startWorker();
    this.workers.pop();
    if (index >= 0) this.workers[index] = fresh;
    return fresh;
  }

  /** Kills Redis (SIGKILL: an outage, not a shutdown). */
  async stopRedis(): Promise<void> {
    await this.#redis.stop();
  }

  /** Starts Redis again on the port the routers and workers know. */
  async restartRedis(): Promise<void> {
    this.#redis = await startRedis(this.#redis.port);
  }

  /** The pids of every live router and worker. */
  get pids(): number[] {
    return [...this.routers, ...this.workers].filter((p) => p.alive()).map((p) => p.pid);
  }

  /** What the processes wrote on stderr, for a failure message. */
  logs(): string {
    return this.#started.map((p) => `--- ${p.role} ${p.pid}\n${p.output().slice(-2_000)}`).join('\n');
  }

  async stop(): Promise<void> {
    await Promise.all(this.#started.map((p) => p.kill('SIGKILL')));
    await this.#redis.stop();
  }
}

/** Ticks each process used over `ms` (test/support/cpu-ticks.ts), where the fleet suites import it. */
export { cpuOver } from '../support/cpu-ticks.js';

export interface IdleReading {
  /** When the first quiet slice began, in ms after `since`; undefined if none began within the bound. */
  quietAfterMs: number | undefined;
  /** Ticks per process in each slice sampled until then. */
  slices: number[][];
  /** Ticks per process over the confirming window that follows the quiet slice. */
  confirm: number[];
}

/**
 * How soon after `since` (a Date.now()) every process went quiet: slices of `sliceMs` are sampled
 * until one has every process under `sliceTicks`, for slices beginning up to `withinMs` after
 * `since`; then a `confirmMs` window checks they stay quiet (the caller asserts on both).
 */
export async function idleAfter(
  pids: number[],
  since: number,
  { withinMs = 1_000, sliceMs = 200, sliceTicks = 5, confirmMs = 1_000 } = {},
): Promise<IdleReading> {
  const slices: number[][] = [];
  let quietAfterMs: number | undefined;
  while (Date.now() - since <= withinMs) {
    const began = Date.now() - since;
    const ticks = await cpuOver(pids, sliceMs);
    slices.push(ticks);
    if (ticks.every((value) => value < sliceTicks)) {
      quietAfterMs = began;
      break;
    }
  }
  const confirm = await cpuOver(pids, confirmMs);
  return { quietAfterMs, slices, confirm };
}

/** Polls `read` until `done`, failing after `timeoutMs` with the last value seen. */
export async function until<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 10_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms; last ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
