/**
 * What a pool child process runs for each call of a tool with `isolation: 'process'`
 * (lib/engine/process-pool.ts forks it): one `run` at a time, each answered by its `result`.
 *
 * The server kills this process, and every process its call started, the moment the call is
 * abandoned: that is the whole point of process isolation, since a handler stuck in `execSync` or
 * `Atomics.wait` never looks at a flag. A call that ends by itself kills what it started and left
 * running before it answers (call-children.ts). The handler is found and run exactly as in
 * a pool thread (workers/pool-entry), so a tool moves between isolations without changing a line.
 *
 * The context is simpler than a thread's: there is no shared memory, so `checkpoint()` and `signal`
 * follow the call's own deadline, and a client's cancel arrives as the kill. Questions for the
 * client and `ctx.tools()` / `ctx.resources()` / `ctx.prompts()` are requests to the server on the
 * IPC channel, each answered by a numbered reply (lib/engine/process-protocol.ts).
 */
import { makePrincipal } from '../lib/auth/principal.js';
import type {
  ProcessEvent,
  ProcessReply,
  ProcessRequest,
  ProcessResult,
  ProcessRun,
  ProcessTask,
} from '../lib/engine/process-protocol.js';
import { killProcesses } from '../lib/engine/process-tree.js';
import type { PoolTaskResult } from '../lib/engine/worker-protocol.js';
import { AnswerBook } from '../lib/tools/client-questions.js';
import { CallAbandonedError, clientRequestMethods, type ToolContext } from '../lib/tools/tool-context.js';
import { beginCallChildren, endCallChildren } from './call-children.js';
import { createEventReporter } from './event-reporter.js';
import { runHandler } from './pool-entry.js';
import { rebuiltError, remoteViews } from './remote-views.js';

// stdout of this process is piped into the server's stdout, which may be the stdio transport: a
// stray console.log from tool code must not corrupt the protocol stream, so it goes to stderr.
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

// When the server is gone, so is the reason to live, and nothing a call started may outlive it:
// whatever the running call marked, then this process's group (itself with it).
process.on('disconnect', () => {
  if (runningMark !== undefined) killProcesses({ mark: runningMark });
  process.kill(-process.pid, 'SIGKILL');
  process.exit(0);
});

/** The mark of the call running now. */
let runningMark: string | undefined;

// Ctrl-C in a terminal signals the whole process group, pool processes included. Stopping is the
// server's decision (it lets calls finish within its grace, then kills what is left), so a pool
// process does not die on SIGINT by itself.
process.on('SIGINT', () => {});

function post(event: ProcessEvent | ProcessResult): void {
  try {
    process.send?.(event);
  } catch (error) {
    // Data that cannot be serialized: the call must not die for a log line, nor go unanswered.
    if (event.weft === 'log') process.send?.({ ...event, data: String(event.data) });
    if (event.weft === 'result') {
      const message = `The tool's result cannot be sent to the server: ${(error as Error).message}`;
      process.send?.({ ...event, result: { ok: false, message, abandoned: false, events: 0 } });
    }
  }
}

type RequestBody = ProcessRequest extends infer R
  ? R extends unknown
    ? Omit<R, 'requestId'>
    : never
  : never;

/** Requests this process sent the server and still waits for, by requestId. */
const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
let lastRequestId = 0;

process.on('message', (message: unknown) => {
  const run = message as Partial<ProcessRun>;
  if (run?.weft === 'run' && run.task) {
    const { task } = run;
    runProcessTask(task).then((result) => post({ weft: 'result', callId: task.callId, result }));
    return;
  }
  const { weft, requestId, reply } = (message ?? {}) as Partial<ProcessReply>;
  if (weft !== 'reply' || requestId === undefined || !reply) return;
  const request = waiting.get(requestId);
  if (!request) return;
  waiting.delete(requestId);
  if (reply.ok) request.resolve(reply.result);
  else request.reject(rebuiltError(reply.message, reply.code));
});

/** Sends a request to the server and waits for its reply; the kill ends the wait with the call. */
function askServer(body: RequestBody): Promise<unknown> {
  const requestId = ++lastRequestId;
  return new Promise((resolve, reject) => {
    waiting.set(requestId, { resolve, reject });
    try {
      process.send?.({ ...body, requestId });
    } catch (error) {
      waiting.delete(requestId);
      reject(new Error(`What this handler passed cannot be sent to the server: ${(error as Error).message}`));
    }
  });
}

async function runProcessTask(task: ProcessTask): Promise<PoolTaskResult> {
  const context = createProcessContext(task);
  runningMark = task.mark;
  beginCallChildren(task.mark);
  try {
    return await runHandler(task, context.ctx, context.book);
  } finally {
    context.finish();
    endCallChildren();
    runningMark = undefined;
  }
}

function createProcessContext(task: ProcessTask): {
  ctx: ToolContext;
  book: AnswerBook | undefined;
  finish: () => void;
} {
  const { deadline } = task;
  let controller: AbortController | undefined;
  let timer: NodeJS.Timeout | undefined;
  const overdue = () => deadline !== undefined && Date.now() >= deadline;

  const ctx: ToolContext = {
    deadline,
    auth: task.auth === undefined ? undefined : makePrincipal(task.auth),
    get signal(): AbortSignal {
      if (!controller) {
        controller = new AbortController();
        const abort = controller;
        if (overdue()) abort.abort(new CallAbandonedError('timeout'));
        else if (deadline !== undefined) {
          timer = setTimeout(() => abort.abort(new CallAbandonedError('timeout')), deadline - Date.now());
        }
      }
      return controller.signal;
    },
    checkpoint() {
      if (overdue()) throw new CallAbandonedError('timeout');
    },
    ...createEventReporter(task, post),
    ...remoteViews((op) => askServer({ weft: 'peer', callId: task.callId, op })),
  };
  // In rounds questions are answered from the book, like a thread's; otherwise the server asks live.
  const book = task.inputs ? new AnswerBook(task.inputs.answers) : undefined;
  const noClient = () =>
    Promise.reject(new Error('This call was not made by a client, so there is no client to ask'));
  Object.assign(
    ctx,
    task.clientCapabilities
      ? clientRequestMethods(
          task.clientCapabilities,
          book
            ? (method, params, options) => book.ask(method, params, options)
            : (method, params) => askServer({ weft: 'request', callId: task.callId, method, params }),
        )
      : { elicit: noClient, sample: noClient, roots: noClient },
    task.inputs ? { inputResponses: task.inputs.answers, requestState: task.inputs.state } : {},
  );
  return { ctx, book, finish: () => clearTimeout(timer) };
}
