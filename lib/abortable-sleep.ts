/**
 * A sleep that a signal cuts short: the timer cleared and the promise rejected with the signal's
 * reason, as code that honours cancellation must (a cancel, a deadline or a shutdown stops the
 * wait; no timer is left behind). The gateway's task polling waits with it, and so do the "wait ms
 * milliseconds" tools of the test, benchmark and conformance servers, so they all stop alike.
 *
 * It imports nothing, so pool threads can load it cheaply.
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
