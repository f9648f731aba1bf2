/**
 * A call refused because its caller is over one of its own limits (`limits.perCaller`, server-wide
 * or the tool's): which limit, and when a retry may pass it. The router turns it into a JSON-RPC
 * error with this as `data` (and, over modern HTTP, a 429 with `Retry-After`).
 */

export interface LimitExceeded {
  readonly limit: 'callsInFlight' | 'queued' | 'callsPerMinute' | 'poolMsPerMinute';
  /** The server-wide limit, or the called tool's own. */
  readonly scope: 'server' | 'tool';
  /** The limit's value. */
  readonly max: number;
  /** How long to wait before a retry may pass, in ms (at least 1). */
  readonly retryAfterMs: number;
}

const WHAT: Record<LimitExceeded['limit'], string> = {
  callsInFlight: 'calls in flight at once',
  queued: 'calls waiting for a slot',
  callsPerMinute: 'calls per minute',
  poolMsPerMinute: 'ms of pool time per minute',
};

/** What the client reads: the limit by its option name, its value, that nothing ran, when to retry. */
export function limitMessage(limit: LimitExceeded, toolName: string): string {
  const option =
    limit.scope === 'tool'
      ? `tool "${toolName}"'s limits.perCaller.${limit.limit}`
      : `limits.perCaller.${limit.limit}`;
  return `Limit exceeded: ${option} allows each caller ${limit.max} ${WHAT[limit.limit]}. Nothing ran; retry in ${limit.retryAfterMs} ms.`;
}
