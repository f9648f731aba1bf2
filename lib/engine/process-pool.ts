/**
 * A small pool of child processes, owned by weft from fork to exit, for tools with
 * `isolation: 'process'`.
 *
 * Why not a general pool library: a process weft kills must never be handed another call, and the
 * pool must know that at the moment weft decides the kill, not when the process's exit is noticed.
 * A pool that learns of a death only from the exit (or from an abort that races the dying process's
 * last answer on the IPC channel) can count the dying process free in between and give it the next
 * call, which then fails with another call's death. Here `kill()` takes the process out of service
 * first, then kills; whatever it still says is dropped.
 *
 * Each process runs one call at a time, leads a process group of its own (so a kill reaches every
 * process its call started in one signal, with the call's mark catching detached ones: see
 * process-tree.ts), writes its stdout and stderr to the server's stderr (never to stdout, which may
 * be the stdio transport), and exits when the server does (workers/process-entry.ts). One process is
 * kept warm, a killed process is replaced at once (while it dies), and idle ones beyond the warm one
 * stop after an idle timeout.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  isProcessEvent,
  type ProcessEvent,
  type ProcessReply,
  type ProcessTask,
} from './process-protocol.js';
import { killProcesses } from './process-tree.js';
import type { PoolTaskResult } from './worker-protocol.js';

const PROCESS_ENTRY = fileURLToPath(new URL('../../workers/process-entry.js', import.meta.url));

export interface ProcessPoolOptions {
  /** Processes this pool may run at once (the admission control caps the total across pools). */
  maxProcesses: number;
  /** Processes kept warm (0 or 1). */
  minProcesses: number;
  idleTimeoutMs: number;
  env: Record<string, string>;
  execArgv: string[];
  /** Where a process that dies while idle is reported. */
  logError: (message: string) => void;
}

/** One call running in a pool process. */
export interface ProcessCall {
  readonly pid: number;
  /** The handler's answer; rejects when the process dies under the call (not when weft kills it). */
  readonly result: Promise<PoolTaskResult>;
  /** Sends a reply to one of the call's requests (dropped once the call is over). */
  send(reply: ProcessReply): void;
}

interface PoolProcess {
  readonly child: ChildProcess;
  /** The call it runs, if any. */
  call?: RunningCall;
  /** Taken out of service: killed, or stopping. It is never given a call again. */
  retired: boolean;
  readonly exited: Promise<void>;
  idleTimer?: NodeJS.Timeout;
}

interface RunningCall {
  readonly callId: number;
  readonly mark: string;
  readonly onEvent: (event: ProcessEvent) => void;
  resolve(result: PoolTaskResult): void;
  reject(error: Error): void;
}

export class ProcessPool {
  readonly #options: ProcessPoolOptions;
  readonly #processes = new Set<PoolProcess>();
  readonly #byPid = new Map<number, PoolProcess>();
  #closed = false;

  constructor(options: ProcessPoolOptions) {
    this.#options = options;
    this.#keepWarm();
  }

  /** Processes alive (idle, busy or dying). */
  get size(): number {
    return this.#processes.size;
  }

  /** Runs a task in an idle process, or a new one; the caller's admission keeps this within bounds. */
  run(task: ProcessTask, onEvent: (event: ProcessEvent) => void): ProcessCall {
    const proc = this.#idle() ?? this.#spawn();
    clearTimeout(proc.idleTimer);
    // A running call (and then its kill, until the exit) keeps the server's event loop alive.
    proc.child.ref();
    proc.child.channel?.ref();
    const result = new Promise<PoolTaskResult>((resolve, reject) => {
      proc.call = { callId: task.callId, mark: task.mark, onEvent, resolve, reject };
    });
    proc.child.send({ weft: 'run', task });
    return {
      pid: proc.child.pid!,
      result,
      send: (reply) => {
        if (proc.call?.callId === task.callId && !proc.retired && proc.child.connected)
          proc.child.send(reply);
      },
    };
  }

  /**
   * Takes the process out of service, then kills it and every process its call started; resolves
   * once the process has exited and none of them is left. The call's result promise never settles.
   */
  async kill(pid: number, mark: string): Promise<void> {
    const proc = this.#byPid.get(pid);
    if (!proc) {
      killProcesses({ mark });
      return;
    }
    proc.retired = true;
    proc.call = undefined;
    killProcesses({ roots: [pid], group: pid, mark });
    // Its replacement starts now, while it dies: its slot is busy until then, and the call that
    // gets the slot next should not pay a process start on top.
    if (!this.#closed && this.#serving() < this.#options.maxProcesses) this.#spawn();
    await proc.exited;
    // A process group outlives its leader: anything that was on its way is gone by now, or is here.
    killProcesses({ group: pid, mark });
  }

  /** Kills every process (with what their calls started) and waits for their exit. */
  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#processes];
    for (const proc of all) {
      const call = proc.call;
      proc.retired = true;
      proc.call = undefined;
      clearTimeout(proc.idleTimer);
      const pid = proc.child.pid!;
      killProcesses({ roots: [pid], group: pid, ...(call ? { mark: call.mark } : {}) });
      call?.reject(new Error('The server is closing'));
    }
    await Promise.all(all.map((proc) => proc.exited));
  }

  #idle(): PoolProcess | undefined {
    for (const proc of this.#processes) {
      if (!proc.retired && proc.call === undefined && proc.child.connected) return proc;
    }
    return undefined;
  }

  #spawn(): PoolProcess {
    const { env, execArgv } = this.#options;
    const child = fork(PROCESS_ENTRY, [], {
      env,
      execArgv,
      serialization: 'advanced',
      // Its own process group: one signal reaches the process and everything it started.
      detached: true,
      stdio: ['ignore', 2, 2, 'ipc'],
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const proc: PoolProcess = { child, retired: false, exited };
    this.#processes.add(proc);
    this.#byPid.set(child.pid!, proc);
    child.on('message', (message: unknown) => this.#onMessage(proc, message));
    // An idle process does not keep the server alive (run() refs it while a call runs).
    child.unref();
    child.channel?.unref();
    // An IPC write to a process that just died: its exit is what counts.
    child.on('error', () => {});
    child.once('exit', (code, signal) => this.#onExit(proc, code, signal));
    return proc;
  }

  #onMessage(proc: PoolProcess, message: unknown): void {
    const call = proc.call;
    if (!call || proc.retired) return; // a killed process's last words
    const { weft, callId, result } = (message ?? {}) as {
      weft?: string;
      callId?: number;
      result?: PoolTaskResult;
    };
    if (callId !== call.callId) return;
    if (weft === 'result' && result) {
      proc.call = undefined;
      this.#becameIdle(proc);
      call.resolve(result);
    } else if (isProcessEvent(message)) call.onEvent(message);
  }

  #onExit(proc: PoolProcess, code: number | null, signal: NodeJS.Signals | null): void {
    this.#processes.delete(proc);
    this.#byPid.delete(proc.child.pid!);
    clearTimeout(proc.idleTimer);
    const call = proc.call;
    proc.call = undefined;
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    if (call) call.reject(new Error(`The pool process ${how} while it ran the call`));
    else if (!proc.retired && !this.#closed)
      this.#options.logError(`weft: a pool process stopped while idle (it ${how}); a new one replaces it`);
    this.#keepWarm();
  }

  #becameIdle(proc: PoolProcess): void {
    proc.child.unref();
    proc.child.channel?.unref();
    if (this.#processes.size <= this.#options.minProcesses) return;
    proc.idleTimer = setTimeout(() => {
      if (proc.call !== undefined || proc.retired) return;
      proc.retired = true;
      proc.child.disconnect(); // it exits on disconnect (workers/process-entry.ts)
    }, this.#options.idleTimeoutMs);
    proc.idleTimer.unref();
  }

  #keepWarm(): void {
    if (this.#closed) return;
    for (let serving = this.#serving(); serving < this.#options.minProcesses; serving++) this.#spawn();
  }

  /** Processes that take calls (busy or idle), not those being killed or stopped. */
  #serving(): number {
    let serving = 0;
    for (const proc of this.#processes) if (!proc.retired) serving++;
    return serving;
  }
}
