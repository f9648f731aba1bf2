/**
 * One pool of threads for blocking tools: a Piscina pool and what its threads share with the main
 * thread (the calls' cancel flags, cancel-flags.ts; the pool's life buffer, thread-life.ts). Which
 * tools share a pool is decided by `threadPoolKey`; the pool executor keeps one pool per key.
 */
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { RegisteredBlockingTool } from '../tools/registered-tool.js';
import { CancelFlags } from './cancel-flags.js';
import { PoolLife } from './thread-life.js';
import { envKey, workerEnv } from './worker-env.js';
import type { PoolWorkerData } from './worker-protocol.js';

/** CommonJS, so Piscina's require() of it is no require(esm): see workers/pool-thread-entry.cts. */
const POOL_ENTRY = fileURLToPath(new URL('../../workers/pool-thread-entry.cjs', import.meta.url));

export interface ThreadPool {
  readonly piscina: Piscina;
  readonly flags: CancelFlags;
  readonly life: PoolLife;
  /** Loads native code (tools pinned to threads): its threads are never terminated while they run. */
  readonly native: boolean;
  /** Calls holding one of its threads now. */
  running: number;
  /**
   * Settles once every thread the pool started with has loaded its entry, exited, or
   * `STARTED_BOUND_MS` passed: a server opens its doors after it, so the first request meets a main
   * thread that is no longer busy bringing threads up (issue 41, the first call's deadline).
   */
  readonly started: Promise<void>;
}

/** Longest a server waits for its threads before it opens its doors anyway (a slow tool entry). */
const STARTED_BOUND_MS = 10_000;

/** Piscina's message from a thread whose task file has loaded (piscina/dist/common.js, READY). */
const PISCINA_READY = '_WORKER_READY';

export interface ThreadPoolOptions {
  maxThreads: number;
  niceIncrement: number;
  logError: (message: string) => void;
}

/**
 * Threads are shared only by tools with the same heap caps and the same environment; native code is
 * loaded only in threads of their own, so no other tool's thread ever holds it. '|' is the default
 * pool's key.
 */
export function threadPoolKey(
  limits: RegisteredBlockingTool['resourceLimits'],
  env: RegisteredBlockingTool['env'],
  native: boolean,
): string {
  return `${limits ? JSON.stringify(Object.entries(limits).sort()) : ''}|${envKey(env)}${native ? '|native' : ''}`;
}

export function createThreadPool(
  options: ThreadPoolOptions,
  kind: {
    limits: RegisteredBlockingTool['resourceLimits'];
    env: RegisteredBlockingTool['env'];
    native: boolean;
    isDefault: boolean;
  },
): ThreadPool {
  const { limits, env, native, isDefault } = kind;
  const threadEnv = workerEnv(env);
  const flags = new CancelFlags(options.maxThreads);
  const life = new PoolLife();
  const piscina = new Piscina({
    filename: POOL_ENTRY,
    workerData: { cancelFlags: flags.buffer, threadLife: life.buffer } satisfies PoolWorkerData,
    maxThreads: options.maxThreads,
    // The default pool and a native one keep their threads warm; others shrink when idle.
    minThreads: isDefault || native ? options.maxThreads : 0,
    niceIncrement: options.niceIncrement,
    // A thread that loaded native code is kept until the pool closes: one that exits while the
    // library's own threads run could unload it under them.
    idleTimeout: isDefault ? 0 : native ? 2 ** 31 - 1 : 30_000,
    ...(limits ? { resourceLimits: limits } : {}),
    ...(threadEnv ? { env: threadEnv } : {}),
  });
  piscina.on('error', (error: unknown) => options.logError(`weft: worker pool error: ${String(error)}`));
  return { piscina, flags, life, native, running: 0, started: threadsStarted(piscina) };
}

/** The threads Piscina made in its constructor (its minimum), each loaded, gone, or past the bound. */
function threadsStarted(piscina: Piscina): Promise<void> {
  // A pool that starts no thread of its own (made at a call, growing on demand) has nothing to wait
  // for: no listener and no bound timer for it.
  if (piscina.threads.length === 0) return Promise.resolve();
  const each = piscina.threads.map(
    (thread) =>
      new Promise<void>((resolve) => {
        const onMessage = (message: unknown) => {
          if (typeof message === 'object' && message !== null && PISCINA_READY in message) done();
        };
        const done = () => {
          thread.off('message', onMessage);
          thread.off('exit', done);
          resolve();
        };
        thread.on('message', onMessage);
        thread.once('exit', done);
      }),
  );
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, STARTED_BOUND_MS);
    timer.unref();
  });
  return Promise.race([Promise.all(each).then(() => undefined), bound]).finally(() => clearTimeout(timer));
}

/** Waits until no call runs in a pool of native threads (at once for any other pool). */
export async function nativeIdle(pool: ThreadPool): Promise<void> {
  while (pool.native && pool.running > 0) await new Promise((resolve) => setTimeout(resolve, 10));
}
