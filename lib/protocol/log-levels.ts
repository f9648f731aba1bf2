/**
 * MCP's log severities (RFC 5424's syslog levels), least severe first.
 *
 * They live in the protocol room because both eras name them on the wire: the legacy era in
 * `logging/setLevel`, the 2026-07-28 era in each request's `io.modelcontextprotocol/logLevel`.
 */
export const LOG_LEVELS = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The index of `level` in LOG_LEVELS, or -1 when it names no level. */
export function logLevelIndex(level: unknown): number {
  return LOG_LEVELS.indexOf(level as LogLevel);
}

/** The `minLogLevel` that lets no log message through (nothing is at or above it). */
export const NO_LOGS = LOG_LEVELS.length;
