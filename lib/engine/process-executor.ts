/**
 * Runs tools with `isolation: 'process'` in pools of child processes (process-pool.ts), and kills
 * them outright when their call is abandoned.
 *
 * A thread can be terminated only between JavaScript instructions: a handler blocked inside native
 * code (`execSync`, `Atomics.wait`, a synchronous addon) keeps its thread, and its slot, until that
 * call returns. A process can always be killed. So at the deadline or cancel the outcome is decided
 * and answered at once, then the child and every process its call started are killed
 * (process-tree.ts): no grace, since there is no shared flag a handler could be watching. The pool
 * takes a killed process out of service before it kills it, so it never runs another call.
 *
 * Every call has its own outcome: a result that says the handler stopped at the deadline on its
 * own clock (`abandoned`) is the timeout, and a process's death is only ever its own call's.
 *
 * Slots are counted as for threads, in the same admission control: a call holds its slot until its
 * process has really exited and the processes its call started are gone, so a dying process never
 * lets more work run than there are slots.
 */
import type { RegisteredBlockingTool } from '../tools/registered-tool.js';
import type { Admission } from './admission.js';
import { callMark, nextCallId } from './call-mark.js';
import type { CallEvents, CallPeer, EngineCall } from './engine-call.js';
import type { Outcome } from './outcome.js';
import { errorReply, type PeerReply, performPeerOp } from './peer-ops.js';
import { decideWorkerDied, resultOutcome, runPooledCall } from './pooled-call.js';
import { type ProcessCall, ProcessPool } from './process-pool.js';
import type { ProcessEvent, ProcessRequest, ProcessTask } from './process-protocol.js';
import { envKey, workerEnv } from './worker-env.js';
import { deliverCallEvent } from './worker-protocol.js';

/** Idle child processes are kept this long for the next call, then stopped. */
const IDLE_TIMEOUT_MS = 30_000;

export interface ProcessExecutorOptions {
  /** Processes that may run at once per pool (the admission control caps the total). */
  maxThreads: number;
  /** Where unexpected child deaths are reported in full (the client sees a redacted message). */
  logError: (message: string) => void;
}

interface RunningCall {
  readonly events: CallEvents;
  /** How the handler's requests reach the client and the server (absent: no client made the call). */
  readonly peer: CallPeer | undefined;
  /** Aborts once the outcome is decided: requests the handler made are withdrawn with it. */
  readonly over: AbortController;
  readonly process: ProcessCall;
  /** Its process is being killed: nothing it says counts any more. */
  killed: boolean;
  finished: boolean;
}

export class ProcessExecutor {
  readonly #admission: Admission;
  readonly #options: ProcessExecutorOptions;
  readonly #pools = new Map<string, ProcessPool>();
  #closed = false;

  constructor(admission: Admission, options: ProcessExecutorOptions) {
    this.#admission = admission;
    this.#options = options;
  }

  run(call: EngineCall & { tool: RegisteredBlockingTool }): Promise<Outcome> {
    const callId = nextCallId();
    const mark = callMark(process.pid, callId);
    const over = new AbortController();
    return runPooledCall(this.#admission, call, {
      isClosed: () => this.#closed,
      onDecided: (outcome) => over.abort(outcome.kind),
      start: (release, decision) => {
        const pool = this.#poolFor(call.tool);
        const task: ProcessTask = {
          callId,
          mark,
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
        const entry: RunningCall = {
          events: call.events,
          peer: call.peer,
          over,
          process: pool.run(task, (event) => this.#onEvent(entry, event)),
          killed: false,
          finished: false,
        };
        entry.process.result.then(
          (result) => {
            entry.finished = true;
            if (result.telemetry) call.watch?.ranOn(result.telemetry.worker, result.telemetry.spans);
            release();
            // A handler that stopped at the deadline on the process's own clock answers `abandoned`
            // just before the server's timer fires: the outcome is the timeout, never a tool error.
            decision.decide(resultOutcome(result, call.budgetMs));
          },
          (error: unknown) => {
            entry.finished = true;
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
            if (entry.finished || entry.killed) return;
            entry.killed = true;
            // The slot comes back once the process and everything its call started are gone.
            void pool.kill(entry.process.pid, mark).then(release);
          },
        };
      },
    });
  }

  /** Starts this tool's pool (one warm process) now, so its first call does not pay for it. */
  warmUp(tool: RegisteredBlockingTool): void {
    if (!this.#closed) this.#poolFor(tool);
  }

  /** Kills every running call's processes, then stops every pool. */
  async close(): Promise<void> {
    this.#closed = true;
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(pools.map((pool) => pool.close()));
  }

  /** Child processes currently alive across all pools, for tests and diagnostics. */
  get processCount(): number {
    let count = 0;
    for (const pool of this.#pools.values()) count += pool.size;
    return count;
  }

  #onEvent(entry: RunningCall, event: ProcessEvent): void {
    if (entry.killed || entry.finished) return; // the call is over: late events are dropped
    if (event.weft === 'request' || event.weft === 'peer') this.#relay(entry, event);
    else deliverCallEvent(entry.events, event);
  }

  /** Asks the client, or performs a PeerOp, for the child; the answer goes back on the IPC channel. */
  #relay(entry: RunningCall, request: ProcessRequest): void {
    const answer = (reply: PeerReply) => {
      if (entry.finished || entry.killed) return; // nobody waits for it any more
      try {
        entry.process.send({ weft: 'reply', requestId: request.requestId, reply });
      } catch (error) {
        const message = `The answer cannot be sent to the process: ${errorReply(error).message}`;
        entry.process.send({ weft: 'reply', requestId: request.requestId, reply: { ok: false, message } });
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

  #poolFor(tool: RegisteredBlockingTool): ProcessPool {
    const heapMb = tool.resourceLimits?.maxOldGenerationSizeMb;
    const key = `${heapMb ?? ''}|${envKey(tool.env)}`;
    let pool = this.#pools.get(key);
    if (pool) return pool;
    pool = new ProcessPool({
      // One process stays warm, and replaces at once one that was killed, so the call after a
      // timeout does not pay a process start.
      minProcesses: 1,
      maxProcesses: this.#options.maxThreads,
      idleTimeoutMs: IDLE_TIMEOUT_MS,
      env: workerEnv(tool.env) ?? (process.env as Record<string, string>),
      execArgv:
        heapMb === undefined ? process.execArgv : [...process.execArgv, `--max-old-space-size=${heapMb}`],
      logError: this.#options.logError,
    });
    this.#pools.set(key, pool);
    return pool;
  }
}
