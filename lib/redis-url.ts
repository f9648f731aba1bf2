/**
 * What a Redis URL given to weft must look like (the task store's, the fleet's, a worker's
 * `--redis`), and how one is written into a log line or an error: with its credentials masked.
 */

export function checkRedisUrl(url: unknown, what: string): asserts url is string {
  if (typeof url !== 'string' || !/^rediss?:\/\//.test(url)) {
    throw new TypeError(
      `${what} must be a redis:// (or rediss://) URL such as redis://127.0.0.1:6379, got ${JSON.stringify(url)}`,
    );
  }
}

/**
 * A URL fit for a log line: user name and password masked, and every query parameter's value (a
 * `?password=` is as secret as the userinfo). Parsed with `new URL()`, as Redis clients parse it,
 * so a password holding `@` or `/` is masked whole; text that is not a URL is not shown at all.
 */
export function redactedUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '(a URL that does not parse)';
  }
  if (parsed.username !== '') parsed.username = '***';
  if (parsed.password !== '') parsed.password = '***';
  for (const key of new Set(parsed.searchParams.keys())) parsed.searchParams.set(key, '***');
  parsed.hash = '';
  return parsed.toString();
}
