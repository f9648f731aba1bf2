/**
 * The `ctx` a blocking handler receives inside a pool worker.
 *
 * `checkpoint()` reads the call's shared flag with one atomic load, so it is cheap enough for a hot
 * loop. `signal` is created only when a handler asks for it: it waits on the same flag with
 * `Atomics.waitAsync`, which the main thread wakes with `Atomics.notify`. Progress is coalesced
 * (at most one message per PROGRESS_INTERVAL_MS, always increasing) so a handler may report from
 * its inner loop without flooding the main thread.
 */
import { MessageChannel, parentPort } from 'node:worker_threads';
import { AbandonCode, abandonReason, FLAG_SLOTS } from '../lib/engine/abandon-reason.js';
import type { ClientReply, PoolTask, WorkerEvent } from '../lib/engine/worker-protocol.js';
import { CallAbandonedError, clientRequestMethods, type ToolContext } from '../lib/tools/tool-context.js';
import { createEventReporter } from './event-reporter.js';

export interface WorkerToolContext extends ToolContext {
  /** Releases the signal's waiter; called by the pool entry when the handler is done. */
  finish(): void;
  /** How many progress/log events this call has posted so far. */
  readonly eventsSent: number;
}

export function createWorkerContext(task: PoolTask): WorkerToolContext {
  const { flag, callId } = task;
  let controller: AbortController | undefined;
  let eventsSent = 0;
  let watching = false;

  /** Tells the main thread this handler looks at its flag, so it deserves the grace. */
  const markWatching = () => {
    if (watching) return;
    watching = true;
    Atomics.store(flag, FLAG_SLOTS.watching, 1);
  };

  const abandonedError = (): CallAbandonedError | undefined => {
    const reason = abandonReason(Atomics.load(flag, FLAG_SLOTS.reason));
    return reason === undefined ? undefined : new CallAbandonedError(reason);
  };

  const post = (event: WorkerEvent) => {
    try {
      parentPort?.postMessage(event);
      eventsSent++;
    } catch {
      // Uncloneable log data: the call must not die for a log line.
      if (event.weft === 'log') {
        parentPort?.postMessage({ ...event, data: String(event.data) });
        eventsSent++;
      }
    }
  };
  const reporter = createEventReporter(task, post);

  // ctx.elicit / ctx.sample: the request goes to the main thread, which asks the client and answers
  // on a port made for this one request. The worker's handler simply awaits it.
  const askClient = (method: string, params: Record<string, unknown>) =>
    new Promise<unknown>((resolve, reject) => {
      markWatching();
      const abandoned = abandonedError();
      if (abandoned) throw abandoned;
      const { port1, port2 } = new MessageChannel();
      port1.once('message', (reply: ClientReply) => {
        port1.close();
        if (reply.ok) resolve(reply.result);
        else reject(abandonedError() ?? new Error(reply.message));
      });
      const event: WorkerEvent = { weft: 'request', callId, method, params, reply: port2 };
      parentPort?.postMessage(event, [port2]);
    });
  const clientRequests = task.clientCapabilities
    ? clientRequestMethods(task.clientCapabilities, askClient)
    : {};

  return {
    ...clientRequests,
    deadline: task.deadline,
    get eventsSent() {
      return eventsSent;
    },
    get signal(): AbortSignal {
      markWatching();
      if (!controller) {
        controller = new AbortController();
        const abort = controller;
        const already = abandonedError();
        if (already) abort.abort(already);
        else {
          const waiting = Atomics.waitAsync(flag, FLAG_SLOTS.reason, AbandonCode.Running);
          const wake = () => {
            const error = abandonedError();
            if (error) abort.abort(error);
          };
          if (waiting.async) waiting.value.then(wake);
          else wake();
        }
      }
      return controller.signal;
    },
    checkpoint() {
      markWatching();
      const error = abandonedError();
      if (error) throw error;
    },
    ...reporter,
    finish() {
      if (controller && Atomics.load(flag, FLAG_SLOTS.reason) === AbandonCode.Running) {
        Atomics.store(flag, FLAG_SLOTS.reason, AbandonCode.Finished);
        Atomics.notify(flag, FLAG_SLOTS.reason);
      }
    },
  };
}
