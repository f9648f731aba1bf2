/**
 * The environment a pool worker (thread or child process) is given.
 *
 * A server's environment usually holds its secrets: API keys, database URLs, cloud credentials.
 * Tool code that does not need them should not be able to read them, so by default a worker sees
 * only a small baseline of variables that say how to run programs and format text, none of which is
 * a secret. A tool opts in to more with its `env` option: `true` for the server's whole environment,
 * or a record of exactly the variables it needs.
 */
import type { ToolEnv } from '../tools/tool-definition.js';

/** Variables every worker keeps: enough for `execSync('ls')`, temp files and locale-aware output. */
export const BASELINE_ENV_KEYS: readonly string[] = [
  'PATH',
  'TMPDIR',
  'TEMP',
  'TMP',
  'TZ',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'SYSTEMROOT',
];

/**
 * The environment for a tool's workers: `undefined` means "inherit the server's" (only when the
 * tool asked for it with `env: true`), otherwise a fresh record.
 */
export function workerEnv(
  env: ToolEnv | undefined,
  source: NodeJS.ProcessEnv = process.env,
): Record<string, string> | undefined {
  if (env === true) return undefined;
  const result: Record<string, string> = {};
  for (const key of BASELINE_ENV_KEYS) {
    const value = source[key];
    if (value !== undefined) result[key] = value;
  }
  return env === undefined ? result : { ...result, ...env };
}

/** A stable key for pooling workers by environment: tools with the same env share workers. */
export function envKey(env: ToolEnv | undefined): string {
  if (env === undefined) return '';
  if (env === true) return 'shared';
  return JSON.stringify(Object.entries(env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
