/**
 * The `ctx` a blocking handler receives inside a pool worker.
 *
 * It is built for the hot path, like the inline context: one object per call, and the costly parts
 * (the AbortSignal, the event reporter, the way to the client) made only when a handler first asks
 * for them. A trivial blocking call pays for none of them.
 *
 * `checkpoint()` reads the call's shared flag with one atomic load, so it is cheap enough for a hot
 * loop. `signal` waits on the same flag with `Atomics.waitAsync`, which the main thread wakes with
 * `Atomics.notify`. Progress is coalesced by the event reporter, so a handler may report from its
 * inner loop without flooding the main thread.
 */
import { MessageChannel, parentPort, workerData } from 'node:worker_threads';
import { makePrincipal, type Principal } from '../lib/auth/principal.js';
import { AbandonCode, abandonReason, FLAG_SLOTS } from '../lib/engine/abandon-reason.js';
import { FLAG_BYTES, flagView } from '../lib/engine/cancel-flags.js';
import type { ClientReply, PoolTask, PoolWorkerData, WorkerEvent } from '../lib/engine/worker-protocol.js';
import type { PromptsView } from '../lib/prompts/prompts-view.js';
import type { ResourcesView } from '../lib/resources/resources-view.js';
import { AnswerBook } from '../lib/tools/client-questions.js';
import {
  type AskOptions,
  CallAbandonedError,
  clientRequestMethods,
  type ElicitParams,
  type ElicitResult,
  type LogLevel,
  type RootsResult,
  type SampleParams,
  type SampleResult,
  type ToolContext,
  type ToolsView,
} from '../lib/tools/tool-context.js';
import { createEventReporter } from './event-reporter.js';
import { type RemoteViews, rebuiltError, remoteViews } from './remote-views.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

type EventReporter = ReturnType<typeof createEventReporter>;
type ClientRequests = ReturnType<typeof clientRequestMethods>;

/** Views into the pool's cancel-flag buffer, one per slot, made once per thread. */
const poolFlags: Int32Array[] = [];

function flagOf({ flagSlot }: PoolTask): Int32Array {
  poolFlags[flagSlot] ??= flagView((workerData as PoolWorkerData).cancelFlags, flagSlot);
  return poolFlags[flagSlot]!;
}

/**
 * What a finished call's ctx reads from then on. The call's slot goes to another call once this one
 * is over, so stray code the handler left running (a timer, an unawaited promise) must not read
 * that call's flag, nor mark it as watched.
 */
const FINISHED_FLAG = new Int32Array(new SharedArrayBuffer(FLAG_BYTES));
Atomics.store(FINISHED_FLAG, FLAG_SLOTS.reason, AbandonCode.Finished);

export class WorkerToolContext implements ToolContext {
  readonly deadline: number | undefined;
  readonly #task: PoolTask;
  #flag: Int32Array;
  #controller: AbortController | undefined;
  #reporter: EventReporter | undefined;
  #clientRequests: ClientRequests | undefined;
  #remoteViews: RemoteViews | undefined;
  #eventsSent = 0;
  #watching = false;

  /** Present when the call runs in rounds (PoolTask.inputs): questions are answered from it. */
  readonly book: AnswerBook | undefined;

  constructor(task: PoolTask) {
    this.#task = task;
    this.#flag = flagOf(task);
    this.deadline = task.deadline;
    this.book = task.inputs ? new AnswerBook(task.inputs.answers) : undefined;
  }

  /** The call's principal, frozen again (the thread boundary hands over a plain copy). */
  get auth(): Principal | undefined {
    const { auth } = this.#task;
    if (auth === undefined || Object.isFrozen(auth)) return auth;
    this.#task.auth = makePrincipal(auth);
    return this.#task.auth;
  }

  get inputResponses(): Readonly<Record<string, unknown>> {
    return this.#task.inputs?.answers ?? {};
  }

  get requestState(): unknown {
    return this.#task.inputs?.state;
  }

  /** How many progress/log events this call has posted so far (see PoolTaskResult). */
  get eventsSent(): number {
    return this.#eventsSent;
  }

  get signal(): AbortSignal {
    this.#markWatching();
    if (!this.#controller) {
      const controller = new AbortController();
      this.#controller = controller;
      const already = this.#abandonedError();
      if (already) controller.abort(already);
      else {
        const waiting = Atomics.waitAsync(this.#flag, FLAG_SLOTS.reason, AbandonCode.Running);
        const wake = () => {
          const error = this.#abandonedError();
          if (error) controller.abort(error);
        };
        if (waiting.async) waiting.value.then(wake);
        else wake();
      }
    }
    return this.#controller.signal;
  }

  // The methods are arrow fields, not prototype methods, so that a handler may destructure them
  // (`handler: (args, { checkpoint, progress }) => ...`) and call them unbound.

  checkpoint = (): void => {
    this.#markWatching();
    const error = this.#abandonedError();
    if (error) throw error;
  };

  progress = (progress: number, total?: number, message?: string): void => {
    if (this.#task.wantsProgress) this.#events().progress(progress, total, message);
  };

  log = (level: LogLevel, data: unknown): void => {
    this.#events().log(level, data);
  };

  // async, so that a call with no client to ask rejects rather than throws.
  elicit = async (params: ElicitParams, options?: AskOptions): Promise<ElicitResult> =>
    this.#requests().elicit(params, options);

  sample = async (params: SampleParams, options?: AskOptions): Promise<SampleResult> =>
    this.#requests().sample(params, options);

  roots = async (options?: AskOptions): Promise<RootsResult> => this.#requests().roots(options);

  tools = (): ToolsView => this.#views().tools();

  resources = (): ResourcesView => this.#views().resources();

  prompts = (): PromptsView => this.#views().prompts();

  /**
   * Called by the pool entry when the handler is done: releases the signal's waiter, and lets go of
   * the call's flag before its slot can be given to another call.
   */
  finish(): void {
    const flag = this.#flag;
    if (this.#controller && Atomics.load(flag, FLAG_SLOTS.reason) === AbandonCode.Running) {
      Atomics.store(flag, FLAG_SLOTS.reason, AbandonCode.Finished);
      Atomics.notify(flag, FLAG_SLOTS.reason);
    }
    this.#flag = FINISHED_FLAG;
  }

  /** Tells the main thread this handler looks at its flag, so it deserves the grace. */
  #markWatching(): void {
    if (this.#watching) return;
    this.#watching = true;
    Atomics.store(this.#flag, FLAG_SLOTS.watching, 1);
  }

  #abandonedError(): CallAbandonedError | undefined {
    const reason = abandonReason(Atomics.load(this.#flag, FLAG_SLOTS.reason));
    return reason === undefined ? undefined : new CallAbandonedError(reason);
  }

  #events(): EventReporter {
    this.#reporter ??= createEventReporter(this.#task, (event) => this.#post(event));
    return this.#reporter;
  }

  #post(event: WorkerEvent): void {
    try {
      parentPort?.postMessage(event);
      this.#eventsSent++;
    } catch {
      // Uncloneable log data: the call must not die for a log line.
      if (event.weft === 'log') {
        parentPort?.postMessage({ ...event, data: String(event.data) });
        this.#eventsSent++;
      }
    }
  }

  #requests(): ClientRequests {
    if (!this.#clientRequests) {
      const capabilities = this.#task.clientCapabilities;
      if (!capabilities) throw new Error('This call was not made by a client, so there is no client to ask');
      const { book } = this;
      // In rounds the thread never waits for the client: the attempt ends and the thread is free.
      this.#clientRequests = clientRequestMethods(
        capabilities,
        book
          ? (method, params, options) => book.ask(method, params, options)
          : (method, params) => this.#askClient(method, params),
      );
    }
    return this.#clientRequests;
  }

  #views(): RemoteViews {
    this.#remoteViews ??= remoteViews((op) =>
      this.#askMainThread({ weft: 'peer', callId: this.#task.callId, op }),
    );
    return this.#remoteViews;
  }

  /** ctx.elicit / ctx.sample: the main thread asks the client on this call's behalf. */
  #askClient(method: string, params: Record<string, unknown>): Promise<unknown> {
    return this.#askMainThread({ weft: 'request', callId: this.#task.callId, method, params });
  }

  /**
   * The request goes to the main thread, which answers on a port made for this one request. The
   * handler simply awaits it.
   */
  #askMainThread(
    request: DistributiveOmit<Extract<WorkerEvent, { reply: unknown }>, 'reply'>,
  ): Promise<unknown> {
    return new Promise<unknown>((resolve, reject) => {
      this.#markWatching();
      const abandoned = this.#abandonedError();
      if (abandoned) throw abandoned;
      const { port1, port2 } = new MessageChannel();
      port1.once('message', (reply: ClientReply) => {
        port1.close();
        if (reply.ok) resolve(reply.result);
        else reject(this.#abandonedError() ?? rebuiltError(reply.message, reply.code));
      });
      const event = { ...request, reply: port2 } as WorkerEvent;
      try {
        parentPort?.postMessage(event, [port2]);
      } catch (error) {
        port1.close();
        reject(
          new Error(
            `What this handler passed cannot be sent to the main thread: ${(error as Error).message}`,
          ),
        );
      }
    });
  }
}
