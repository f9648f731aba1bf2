/**
 * What a Redis URL given to weft must look like (the task store's, the fleet's, a worker's
 * `--redis`), and how one is written into a log line or an error: with its password masked.
 */

export function checkRedisUrl(url: unknown, what: string): asserts url is string {
  if (typeof url !== 'string' || !/^rediss?:\/\//.test(url)) {
    throw new TypeError(
      `${what} must be a redis:// (or rediss://) URL such as redis://127.0.0.1:6379, got ${JSON.stringify(url)}`,
    );
  }
}

/** A URL fit for a log line: the password, if any, masked. */
export function redactedUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}
