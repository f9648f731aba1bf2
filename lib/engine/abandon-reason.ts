/**
 * Why a call was abandoned, as the small integers written into a call's shared cancel flag.
 *
 * The flag is an Int32Array over a SharedArrayBuffer: the main thread stores a reason and a worker
 * reads it with `Atomics.load`, so `ctx.checkpoint()` costs a memory read, not a message round trip.
 * A second slot says whether the handler ever looked: a handler that never called `checkpoint()`,
 * read `signal` or asked the client cannot stop by itself, so its thread is terminated without
 * waiting out the grace. A third holds where the call's thread is in its life (thread-life.ts), a
 * fourth the id of that thread, so that the main thread terminates that very thread.
 */
export const FLAG_SLOTS = { reason: 0, watching: 1, life: 2, thread: 3 } as const;
export const AbandonCode = {
  Running: 0,
  Timeout: 1,
  Cancelled: 2,
  Shutdown: 3,
  /** Written by the worker itself when the call ends, to release its own waiters. */
  Finished: 4,
} as const;

export type AbandonReason = 'timeout' | 'cancelled' | 'shutdown';

export function abandonCode(reason: AbandonReason): number {
  return reason === 'timeout'
    ? AbandonCode.Timeout
    : reason === 'cancelled'
      ? AbandonCode.Cancelled
      : AbandonCode.Shutdown;
}

export function abandonReason(code: number): AbandonReason | undefined {
  switch (code) {
    case AbandonCode.Timeout:
      return 'timeout';
    case AbandonCode.Cancelled:
      return 'cancelled';
    case AbandonCode.Shutdown:
      return 'shutdown';
    default:
      return undefined;
  }
}
