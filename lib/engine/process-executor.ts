/**
 * Runs tools with `isolation: 'process'` in a pool of child processes (tinypool's `child_process`
 * runtime), and kills them outright when their call is abandoned.
 *
 * A thread can be terminated only between JavaScript instructions: a handler blocked inside native
 * code (`execSync`, `Atomics.wait`, a synchronous addon) keeps its thread, and its slot, until that
 * call returns. A process can always be killed. So at the deadline or cancel the outcome is decided
 * and answered at once, then the child and every process it spawned are killed (process-tree.ts):
 * no grace, since there is no shared flag a handler could be watching.
 *
 * Slots are counted as for threads, in the same admission control: a call holds its slot until its
 * process has really exited, so a dying process never lets more work run than there are slots.
 */
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Tinypool } from 'tinypool';
import type { RegisteredBlockingTool } from '../tools/registered-tool.js';
import type { Admission, Release } from './admission.js';
import type { CallEvents, CallPeer, EngineCall } from './engine-call.js';
import type { Outcome } from './outcome.js';
import { errorReply, type PeerReply, performPeerOp } from './peer-ops.js';
import { decideWorkerDied, resultOutcome, runPooledCall } from './pooled-call.js';
import {
  isProcessEvent,
  type ProcessEvent,
  type ProcessReply,
  type ProcessRequest,
  type ProcessTask,
} from './process-protocol.js';
import { killProcessTree } from './process-tree.js';
import { envKey, workerEnv } from './worker-env.js';
import { deliverCallEvent, type PoolTaskResult } from './worker-protocol.js';

const PROCESS_ENTRY = fileURLToPath(new URL('../../workers/process-entry.js', import.meta.url));

/** Idle child processes are kept this long for the next call, then stopped. */
const IDLE_TIMEOUT_MS = 30_000;

export interface ProcessExecutorOptions {
  /** Processes that may run at once per pool (the admission control caps the total). */
  maxThreads: number;
  /** Where unexpected child deaths are reported in full (the client sees a redacted message). */
  logError: (message: string) => void;
}

interface RunningCall {
  readonly pool: Tinypool;
  readonly events: CallEvents;
  /** How the handler's requests reach the client and the server (absent: no client made the call). */
  readonly peer: CallPeer | undefined;
  /** Aborts once the outcome is decided: requests the handler made are withdrawn with it. */
  readonly over: AbortController;
  /** Sends a message to the child running this call (set by tinypool when the task is posted). */
  send?: (message: ProcessReply) => void;
  readonly release: Release;
  /** Announced by the child when the call starts. */
  pid?: number;
  /** The call was abandoned before the child announced itself: kill it as soon as it does. */
  killOnStart: boolean;
  killed: boolean;
  finished: boolean;
}

/** The part of tinypool's process worker this executor reads: its pid and its ChildProcess. */
interface ProcessWorkerView {
  threadId?: number;
  process?: ChildProcess;
}

export class ProcessExecutor {
  readonly #admission: Admission;
  readonly #options: ProcessExecutorOptions;
  readonly #pools = new Map<string, Tinypool>();
  readonly #calls = new Map<number, RunningCall>();
  #nextCallId = 1;
  #closed = false;

  constructor(admission: Admission, options: ProcessExecutorOptions) {
    this.#admission = admission;
    this.#options = options;
  }

  run(call: EngineCall & { tool: RegisteredBlockingTool }): Promise<Outcome> {
    const callId = this.#nextCallId++;
    const over = new AbortController();
    return runPooledCall(this.#admission, call, {
      isClosed: () => this.#closed,
      onDecided: (outcome) => over.abort(outcome.kind),
      start: (release, decision) => {
        const pool = this.#poolFor(call.tool);
        const entry: RunningCall = {
          pool,
          events: call.events,
          peer: call.peer,
          over,
          release,
          killOnStart: false,
          killed: false,
          finished: false,
        };
        this.#calls.set(callId, entry);
        const task: ProcessTask = {
          callId,
          toolName: call.tool.handlerName,
          moduleUrl: call.tool.moduleUrl,
          exportName: call.tool.exportName,
          args: call.args,
          deadline: call.budgetMs > 0 ? Date.now() + call.budgetMs : undefined,
          wantsProgress: call.events.progress !== undefined,
          minLogLevel: call.events.minLogLevel,
          ...(call.peer ? { clientCapabilities: call.peer.clientCapabilities } : {}),
          ...(call.inputs ? { inputs: call.inputs } : {}),
          ...(call.auth ? { auth: call.auth } : {}),
        };
        const trace = call.watch?.carrier();
        if (trace !== undefined) task.trace = trace;
        // A channel per call: tinypool hands it the way to this call's child (onMessage).
        const channel = {
          postMessage: (message: unknown) => {
            if (isProcessEvent(message)) this.#onEvent(message);
          },
          onMessage: (send: (message: ProcessReply) => void) => {
            entry.send = send;
          },
        };
        pool.run(task, { channel }).then(
          (result: PoolTaskResult) => {
            if (result.telemetry) call.watch?.ranOn(result.telemetry.worker, result.telemetry.spans);
            entry.finished = true;
            this.#calls.delete(callId);
            if (entry.killed) return; // the slot comes back when the process has exited
            release();
            decision.decide(resultOutcome(result));
          },
          (error: unknown) => {
            entry.finished = true;
            this.#calls.delete(callId);
            if (entry.killed) return;
            release();
            if (decision.decided || this.#closed) return;
            decideWorkerDied(
              decision,
              this.#options.logError,
              `the process running tool "${call.tool.name}"`,
              error,
            );
          },
        );
        return {
          abandon: () => {
            // No grace: there is no shared flag a handler could be watching.
            if (entry.pid === undefined) entry.killOnStart = true;
            else this.#kill(callId, entry);
          },
        };
      },
    });
  }

  /** Starts this tool's pool (one warm process) now, so its first call does not pay for it. */
  warmUp(tool: RegisteredBlockingTool): void {
    if (!this.#closed) this.#poolFor(tool);
  }

  /** Kills every running call's process tree, then stops every pool. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const [callId, entry] of this.#calls) {
      if (entry.pid !== undefined) this.#kill(callId, entry);
    }
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(pools.map((pool) => pool.destroy()));
  }

  /** Child processes currently alive across all pools, for tests and diagnostics. */
  get processCount(): number {
    let count = 0;
    for (const pool of this.#pools.values()) count += pool.threads.length;
    return count;
  }

  #onEvent(event: ProcessEvent): void {
    const entry = this.#calls.get(event.callId);
    if (!entry) return; // the call is over: late events are dropped
    if (event.weft === 'started') {
      entry.pid = event.pid;
      if (entry.killOnStart) this.#kill(event.callId, entry);
      return;
    }
    if (entry.killOnStart || entry.killed) return;
    if (event.weft === 'request' || event.weft === 'peer') this.#relay(entry, event);
    else deliverCallEvent(entry.events, event);
  }

  /** Asks the client, or performs a PeerOp, for the child; the answer goes back on the IPC channel. */
  #relay(entry: RunningCall, request: ProcessRequest): void {
    const answer = (reply: PeerReply) => {
      if (entry.finished || entry.killed) return; // nobody waits for it any more
      try {
        entry.send?.({ weft: 'reply', requestId: request.requestId, reply });
      } catch (error) {
        const message = `The answer cannot be sent to the process: ${errorReply(error).message}`;
        entry.send?.({ weft: 'reply', requestId: request.requestId, reply: { ok: false, message } });
      }
    };
    const { peer } = entry;
    if (!peer) {
      answer({
        ok: false,
        message: 'This call was not made by a client, so there is no client or server to reach',
      });
      return;
    }
    const asked =
      request.weft === 'request'
        ? peer.request(request.method, request.params, entry.over.signal)
        : performPeerOp(peer, entry.over.signal, request.op);
    asked.then(
      (result) => answer({ ok: true, result }),
      (error: unknown) => answer({ ok: false, ...errorReply(error) }),
    );
  }

  #kill(callId: number, entry: RunningCall): void {
    if (entry.killed || entry.finished || entry.pid === undefined) return;
    entry.killed = true;
    this.#calls.delete(callId);
    const pid = entry.pid;
    const child = (entry.pool.threads as unknown as ProcessWorkerView[]).find(
      (worker) => worker.threadId === pid,
    )?.process;
    const alive = child !== undefined && child.exitCode === null && child.signalCode === null;
    if (alive) child.once('exit', () => entry.release());
    killProcessTree(pid);
    if (!alive) entry.release();
  }

  #poolFor(tool: RegisteredBlockingTool): Tinypool {
    const heapMb = tool.resourceLimits?.maxOldGenerationSizeMb;
    const key = `${heapMb ?? ''}|${envKey(tool.env)}`;
    let pool = this.#pools.get(key);
    if (pool) return pool;
    pool = new Tinypool({
      filename: PROCESS_ENTRY,
      runtime: 'child_process',
      // One process stays warm, and replaces at once one that was killed, so the call after a
      // timeout does not pay a process start.
      minThreads: 1,
      maxThreads: this.#options.maxThreads,
      idleTimeout: IDLE_TIMEOUT_MS,
      // Structured clone over IPC, so results cross as they would from a thread.
      serialization: 'advanced',
      env: workerEnv(tool.env) ?? (process.env as Record<string, string>),
      ...(heapMb === undefined ? {} : { execArgv: [...process.execArgv, `--max-old-space-size=${heapMb}`] }),
    });
    // An idle pool process that dies (killed from outside, the OOM killer) is reported on the pool
    // itself; unheard, that event would end the server. It is logged, and tinypool replaces it.
    pool.on('error', (error: unknown) =>
      this.#options.logError(`weft: a pool process stopped: ${(error as Error)?.message ?? String(error)}`),
    );
    this.#pools.set(key, pool);
    return pool;
  }
}
