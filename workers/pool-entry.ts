/**
 * What a pool thread runs for each blocking call: find the tool's handler, run it with a worker
 * context, and hand back a result the main thread can trust.
 *
 * Handler failures are returned as values, never thrown, so that on the main thread a rejected task
 * means one thing only: the worker itself died (exit, out of memory, crash). A result that cannot
 * cross the thread boundary (a function, a symbol) becomes a tool error here instead of killing the
 * worker while it posts the answer. Pool processes (workers/process-entry) run their handlers
 * through the same `runHandler`, with a context of their own.
 *
 * Pool threads reach this module through workers/pool-thread-entry.cts, by import(). Each call
 * writes where its thread is (loading the tool's module, running) into its flag, so that the main
 * thread never terminates a thread in the middle of a load (lib/engine/thread-life.ts).
 */
import { types } from 'node:util';
import { threadId, workerData } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { FLAG_SLOTS } from '../lib/engine/abandon-reason.js';
import { callMark } from '../lib/engine/call-mark.js';
import type { TraceCarrier } from '../lib/engine/call-observer.js';
import { flagView } from '../lib/engine/cancel-flags.js';
import { beginCallLoad, CallLife, endCall, setCallLife } from '../lib/engine/thread-life.js';
import type { PoolTask, PoolTaskResult, PoolWorkerData } from '../lib/engine/worker-protocol.js';
import { bytesResult, isBytes } from '../lib/tools/binary-content.js';
import { type AnswerBook, QuestionsAsked, untilQuestions } from '../lib/tools/client-questions.js';
import { textResult } from '../lib/tools/content.js';
import { findHandler, type Handler, type HandlerAddress } from '../lib/tools/handler-export.js';
import { MOVED_STRING_MIN_CHARS, moveLongStrings } from '../lib/tools/moved-strings.js';
import {
  CallAbandonedError,
  MissingClientCapabilityError,
  type ToolContext,
} from '../lib/tools/tool-context.js';
import { beginCallChildren, endCallChildren } from './call-children.js';
import { beginNativeGuard, refusedAddons } from './native-guard.js';
import { withCallTrace } from './span-relay.js';
import { WorkerToolContext } from './worker-context.js';

// A worker's stdout is piped into the server's stdout, which may be the stdio transport: a stray
// console.log in tool code must not corrupt the protocol stream, so it goes to stderr instead.
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

// A stray rejection in tool code would otherwise end a pool process (Node's default; this module is
// loaded by workers/process-entry too), and with it whichever call runs there next: it is reported
// on stderr, and the worker carries on.
process.on('unhandledRejection', (reason) => {
  process.stderr.write(
    `weft: unhandled promise rejection in a worker: ${(reason as Error)?.stack ?? String(reason)}\n`,
  );
});

/** Handlers already loaded, for the common case: no promise to wait on. */
const loaded = new Map<string, Handler>();
/** Handlers whose module is still loading, so concurrent first calls import it once. */
const loading = new Map<string, Promise<Handler>>();

export default async function runTask(task: PoolTask): Promise<PoolTaskResult | ReturnType<typeof move>> {
  const data = workerData as PoolWorkerData;
  const flag = flagView(data.cancelFlags, task.flagSlot);
  try {
    // Abandoned before its thread picked it up (or the pool is closing): nothing is loaded or run.
    if (!beginCallLoad(flag, data.threadLife, threadId)) return NOT_STARTED;
    const key = handlerKey(task);
    beginNativeGuard(task.nativeAllowed === true);
    // The module is loaded here, while the flag says so; a module that fails to load fails the
    // call below, in runHandler, with the usual tool error.
    if (!loaded.has(key)) await loadHandler(task, key).catch(() => undefined);
    // A module refused its native code has not run its handler: the main thread moves the call.
    const nativeRefused = refusedAddons(task.moduleUrl);
    if (nativeRefused !== undefined) return { ...NOT_STARTED, nativeRefused };
    if (Atomics.load(flag, FLAG_SLOTS.reason) !== 0) return NOT_STARTED;
    setCallLife(flag, CallLife.Running);
    const ctx = new WorkerToolContext(task);
    beginCallChildren(callMark(process.pid, task.callId));
    try {
      return movedOut(await runHandler(task, ctx, ctx.book), task.stringIsText === true);
    } finally {
      ctx.finish();
      endCallChildren();
    }
  } finally {
    endCall(flag);
  }
}

/**
 * A thread's result as it is posted: an ok one with its long strings as bytes, moved with the
 * message rather than copied (lib/tools/moved-strings.ts).
 */
function movedOut(result: PoolTaskResult, stringIsText: boolean): PoolTaskResult | ReturnType<typeof move> {
  if (result.ok !== true) return result;
  let out: ReturnType<typeof moveLongStrings>;
  try {
    // A long bare string becomes here the text block the main thread would have made of it.
    const { value } = result;
    const long = stringIsText && typeof value === 'string' && value.length >= MOVED_STRING_MIN_CHARS;
    out = moveLongStrings(long ? textResult(value) : value);
  } catch {
    // Reading the value ran tool code that threw (a getter, a Proxy): it crosses as it is, and the
    // main thread's check of the result says what was wrong with it.
    return result;
  }
  if (out.moved.length === 0) return result;
  return move({
    [transferableSymbol]: out.moved.map((string) => string.bytes),
    [valueSymbol]: { ...result, value: out.value, moved: out.moved },
  });
}

/** The answer of a call abandoned before its handler ran; the main thread has decided it already. */
const NOT_STARTED: PoolTaskResult = {
  ok: false,
  message: 'The call was abandoned before its handler ran',
  abandoned: true,
  events: 0,
};

/**
 * Runs a call's handler with its ctx, in a pool thread or a pool process, and returns the outcome
 * as a value. `events` is what the ctx says it posted, for contexts that count their events.
 */
export function runHandler(
  task: HandlerAddress & { args: unknown; trace?: TraceCarrier },
  ctx: ToolContext & { readonly eventsSent?: number },
  book?: AnswerBook,
): Promise<PoolTaskResult> {
  // With a trace context, the handler's spans are children of the call's run span (span-relay.ts).
  if (task.trace !== undefined) return withCallTrace(task.trace, () => runUntraced(task, ctx, book));
  return runUntraced(task, ctx, book);
}

async function runUntraced(
  task: HandlerAddress & { args: unknown },
  ctx: ToolContext & { readonly eventsSent?: number },
  book?: AnswerBook,
): Promise<PoolTaskResult> {
  try {
    const key = handlerKey(task);
    const handler = loaded.get(key) ?? (await loadHandler(task, key));
    // A round of questions ends the attempt; the handler's code past them never runs here.
    const value = await untilQuestions(Promise.resolve(handler(task.args, ctx)), book);
    if (value instanceof QuestionsAsked) {
      return { ok: 'input-required', questions: value.questions, events: ctx.eventsSent ?? 0 };
    }
    // Bare bytes become their content block here, where they were made: only base64 text crosses.
    if (isBytes(value)) {
      const shaped = bytesResult(task.toolName, value);
      if ('refusal' in shaped) throw new Error(shaped.refusal);
      return { ok: true, value: shaped.result, events: ctx.eventsSent ?? 0 };
    }
    assertTransferable(value, task.toolName);
    return { ok: true, value, events: ctx.eventsSent ?? 0 };
  } catch (error) {
    return {
      ok: false,
      message: error instanceof Error ? error.message || error.name : String(error),
      abandoned: error instanceof CallAbandonedError,
      events: ctx.eventsSent ?? 0,
      ...(error instanceof MissingClientCapabilityError ? { missingCapability: error.capability } : {}),
    };
  }
}

const handlerKey = (task: HandlerAddress) => `${task.moduleUrl}#${task.exportName}#${task.toolName}`;

/** Imports the handler's module once, however many first calls wait for it. */
function loadHandler(task: HandlerAddress, key: string): Promise<Handler> {
  let found = loading.get(key);
  if (!found) {
    found = import(task.moduleUrl).then((module: Record<string, unknown>) => {
      const handler = findHandler(module, task);
      loaded.set(key, handler);
      return handler;
    });
    // Loaded or failed, it no longer waits; a module that failed to load may be fixed on disk.
    const settled = () => loading.delete(key);
    found.then(settled, settled);
    loading.set(key, found);
  }
  return found;
}

function assertTransferable(value: unknown, toolName: string): void {
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'function' || typeof value === 'symbol')
      throw notTransferable(toolName, `it is a ${typeof value}`);
    return;
  }
  if (isPlainData(value)) return;
  try {
    structuredClone(value);
  } catch (error) {
    throw notTransferable(toolName, cloneProblem(error));
  }
}

/** Deeper than this, the trial clone decides (and names the depth as the problem if it fails). */
const MAX_WALK_DEPTH = 512;

/**
 * True when `value` is made only of plain objects, arrays and primitives that cross a thread as
 * they are: then the result needs no trial clone, which copied every string of it (an 8 MiB image's
 * base64 text: ~85% of its thread's time in the profile) only to throw the copy away. The
 * walk reads each member once, as a clone would; anything else (a class instance, a Map, a getter
 * that throws) is left to the trial clone, which says exactly what is wrong.
 */
function isPlainData(root: object): boolean {
  const seen = new Set<object>();
  const walk = (value: unknown, depth: number): boolean => {
    if (typeof value === 'function' || typeof value === 'symbol') return false;
    if (typeof value !== 'object' || value === null) return true;
    if (depth > MAX_WALK_DEPTH) return false;
    // A Proxy looks like plain data to every read, yet postMessage cannot copy it.
    if (types.isProxy(value)) return false;
    if (seen.has(value)) return true;
    seen.add(value);
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) if (!walk(value[index], depth + 1)) return false;
      return true;
    }
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return false;
    for (const key of Object.keys(value))
      if (!walk((value as Record<string, unknown>)[key], depth + 1)) return false;
    return true;
  };
  try {
    return walk(root, 0);
  } catch {
    return false;
  }
}

/** Why a value could not be copied out of the worker, on one line and of bounded length. */
function cloneProblem(error: unknown): string {
  if (error instanceof RangeError && /call stack/i.test(error.message)) {
    return 'it is nested too deeply to serialize';
  }
  const message = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
  const short = message.length > 160 ? `${message.slice(0, 160)}...` : message;
  return (error as Error)?.name === 'DataCloneError'
    ? `it holds something only JavaScript can hold, not data (${short})`
    : `reading it threw: ${short}`;
}

/**
 * Worded as the main thread words what JSON cannot carry (router/tool-methods), so a value fails
 * alike wherever its tool runs; only what fails first differs (a clone meets a function first).
 */
function notTransferable(toolName: string, detail: string): Error {
  return new Error(
    `Tool "${toolName}" returned a value that cannot be sent as JSON: ${detail}; return JSON data, a string or a CallToolResult`,
  );
}
