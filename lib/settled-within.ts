/**
 * A wait with a deadline, for the stop path: shutdown awaits things it does not control (a Redis
 * that stopped answering, a peer that stopped reading, a thread in native code), and a stop that
 * waits on them without a bound is a stop that may never end. Each such await says how long it
 * may take; the caller cuts the resource when the answer is "not in time".
 */

/** Resolves true once `work` settles (either way) within `ms`, false when `ms` passed first. */
export async function settledWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
