/**
 * An `overloaded` outcome on the wire: the server's queue full (-32010, "try later"), or the
 * caller over one of its own limits (-32013), whose `data` names the limit and says when to retry
 * (`retryAfterMs`; over modern HTTP the reply is a 429 with `Retry-After` too: http-status.ts).
 */
import type { Outcome } from '../engine/outcome.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { ProtocolError } from '../protocol/protocol-error.js';

export function overloadedError(outcome: Extract<Outcome, { kind: 'overloaded' }>): ProtocolError {
  if (!outcome.limit) return new ProtocolError(ErrorCode.Overloaded, outcome.reason);
  const { limit, scope, max, retryAfterMs } = outcome.limit;
  return new ProtocolError(ErrorCode.LimitExceeded, outcome.reason, { limit, scope, max, retryAfterMs });
}
