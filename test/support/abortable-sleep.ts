/**
 * A sleep that a tool's `ctx.signal` cuts short: the shape of every "wait ms milliseconds" tool in
 * the test and benchmark servers (a cancel, a deadline or a shutdown must stop it, not leave a timer
 * behind). Kept in one place so they all stop the same way: the timer cleared and the promise
 * rejected with the signal's reason, as a handler that honours cancellation would.
 *
 * It imports nothing, so pool threads can load it (benchmarks/servers/soak-tools.ts does).
 */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
