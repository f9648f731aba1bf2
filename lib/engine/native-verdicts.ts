/**
 * Which blocking tools' modules load native code, learnt without the author's help and kept per
 * module: the input that lets the engine run such a tool where a deadline and a cancel can stop it
 * (engine.ts, `#whereRuns`).
 *
 * Why it matters: a pool thread is stopped by terminating it, and native work does not stop with
 * its thread. argon2's hash goes on in libuv's pool and calls back into the dead thread (SIGABRT of
 * the whole server); sharp's libvips threads go on burning CPU after the call was answered. A
 * process can be killed with everything it runs, so that is where such a tool goes by default.
 *
 * How it is learnt: the first call of a tool runs in a pool thread as always, and the thread refuses
 * any native addon while it loads the tool's module (workers/native-guard.ts). A module that wanted
 * one ends the call before its handler ran, with the addons it wanted; the verdict is kept here and
 * the call is placed again, now knowing. Pure-JavaScript tools pay nothing: no probe, no wait. No
 * native library is ever loaded in a thread that may be terminated, and no module is loaded twice in
 * one thread.
 */
import { basename } from 'node:path';
import type { RegisteredBlockingTool } from '../tools/registered-tool.js';
import type { EngineCall } from './engine-call.js';
import type { Outcome } from './outcome.js';

/**
 * Hears that a call's thread found its module wanting native code (the handler did not run): the
 * outcome of the call placed again, unless it was decided meanwhile.
 */
export type NativeFound = (
  call: EngineCall & { tool: RegisteredBlockingTool },
  addons: readonly string[],
  elapsedMs: number,
  decided: boolean,
) => Promise<Outcome> | undefined;

export class NativeVerdicts {
  readonly #logError: (message: string) => void;
  /** Per module URL: the native addons its load wanted. Absent: none seen (yet). */
  readonly #addons = new Map<string, readonly string[]>();
  /** Tools whose placement was already said in the log (once per tool). */
  readonly #told = new WeakSet<RegisteredBlockingTool>();

  constructor(logError: (message: string) => void) {
    this.#logError = logError;
  }

  /** The tool's module was seen loading native code: these addons. */
  record(tool: RegisteredBlockingTool, addons: readonly string[]): void {
    if (!this.#addons.has(tool.moduleUrl)) this.#addons.set(tool.moduleUrl, addons);
  }

  /** True once the tool's module was seen loading native code. */
  loadsNative(tool: RegisteredBlockingTool): boolean {
    return this.#addons.has(tool.moduleUrl);
  }

  /** Says once per tool, in the log, where a native tool runs and why. */
  tell(tool: RegisteredBlockingTool): void {
    const addons = this.#addons.get(tool.moduleUrl);
    if (addons === undefined || this.#told.has(tool)) return;
    this.#told.add(tool);
    const names = addons.map((file) => basename(file)).join(', ');
    this.#logError(
      tool.isolationPinned
        ? `weft: tool "${tool.name}" loads native code (${names}) and is pinned to threads (isolation: 'thread'): at its deadline or a cancel its thread is not terminated (native work may still call back into it); the call is answered at once and its slot stays busy, counted lost, until the handler returns`
        : `weft: tool "${tool.name}" loads native code (${names}): it runs in a pool process (isolation: 'process'), where a deadline or a cancel stops it safely; set isolation: 'thread' to keep it in threads`,
    );
  }
}
