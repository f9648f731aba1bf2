/**
 * Polling until something is so, for the in-process suites whose state changes a few event-loop
 * turns later (a task's status, a notification): read, check, wait 20 ms, again, and fail with the
 * last value read once the time is up, so a timeout says what was seen instead of only that it hung.
 */
export async function until<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
