/**
 * Keeps native code out of pool threads that may be terminated, and tells the main thread which
 * tool modules tried to load some (lib/engine/native-verdicts.ts decides what that means).
 *
 * A pool thread is stopped by terminating it, and native work does not stop with its thread:
 * argon2's hash goes on in libuv's pool and calls back into the dead thread (SIGABRT of the whole
 * server), sharp's libvips threads go on burning CPU after the call was answered. Every addon is
 * opened through `process.dlopen` (require() of a `.node` file, node-gyp-build, bindings, the
 * prebuilt packages of sharp and friends), so this thread's `process.dlopen` is wrapped: while a
 * call that may not load native code runs, opening an addon is refused (it throws before anything
 * native is loaded) and remembered against the call's module. The call then ends without its handler
 * having run, and the main thread runs it where it can be stopped safely (a pool process).
 *
 * A module is remembered per thread because a module whose import failed stays failed in this
 * thread's module cache: a second first call finds the failure without a second dlopen.
 */

/** Thrown by the wrapped `process.dlopen` while native code is refused; its message is for a human. */
export class NativeCodeRefused extends Error {}

let refusing = false;
/** Addons refused since the current call began. */
let refused: string[] = [];
/** Modules whose load was refused in this thread, with the addons they wanted. */
const refusedModules = new Map<string, readonly string[]>();
let installed = false;

function install(): void {
  installed = true;
  const dlopen = process.dlopen;
  process.dlopen = function guarded(this: NodeJS.Process, ...args: Parameters<typeof dlopen>) {
    if (refusing) {
      const file = String(args[1]);
      refused.push(file);
      throw new NativeCodeRefused(
        `weft does not load native code (${file}) in a pool thread that may be terminated; the tool runs in a pool process instead (or pin isolation: 'thread')`,
      );
    }
    return dlopen.apply(this, args);
  } as typeof dlopen;
}

/** A call begins in this thread: whether it may load native code (a tool pinned to threads may). */
export function beginNativeGuard(allowed: boolean): void {
  if (!installed) install();
  refusing = !allowed;
  refused = [];
}

/**
 * After the module `moduleUrl` was loaded for the call: the addons its load tried to open and was
 * refused (now or by an earlier call in this thread), or undefined when it loaded none.
 */
export function refusedAddons(moduleUrl: string): readonly string[] | undefined {
  const earlier = refusedModules.get(moduleUrl);
  if (earlier !== undefined) return earlier;
  if (refused.length === 0) return undefined;
  const addons = [...new Set(refused)];
  refusedModules.set(moduleUrl, addons);
  return addons;
}
