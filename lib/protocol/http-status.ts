/**
 * The one table from a JSON-RPC error to the HTTP status that carries it, per era.
 *
 * The legacy era answers every JSON-RPC error in-band (200; transports pick 4xx only for HTTP-level
 * problems such as a bad session). The modern era routes on standard HTTP semantics, so the errors
 * a proxy or balancer should see (a malformed or unroutable request) get a 4xx; errors a handler
 * raised while serving a well-formed request stay in-band with 200, as the official SDK does.
 */
import type { Era } from './eras.js';
import { ErrorCode } from './error-codes.js';

const MODERN_STATUS: ReadonlyMap<number, number> = new Map([
  [ErrorCode.ParseError, 400],
  [ErrorCode.InvalidRequest, 400],
  [ErrorCode.MethodNotFound, 404],
  [ErrorCode.HeaderMismatch, 400],
  [ErrorCode.MissingRequiredClientCapability, 400],
  [ErrorCode.UnsupportedProtocolVersion, 400],
  [ErrorCode.Overloaded, 503],
  [ErrorCode.LimitExceeded, 429],
  [ErrorCode.ShuttingDown, 503],
  [ErrorCode.InsufficientScope, 403],
]);

/**
 * The status for an error response. `fromEnvelope` is true when the error came from checking the
 * request itself (its envelope or routing) rather than from the handler: an envelope -32602 is a
 * malformed request (400), a handler's -32602 (unknown tool, bad cursor) is in-band (200).
 */
export function httpStatusFor(era: Era, code: number, fromEnvelope = false): number {
  if (era === 'legacy') return 200;
  if (code === ErrorCode.InvalidParams) return fromEnvelope ? 400 : 200;
  return MODERN_STATUS.get(code) ?? 200;
}

/**
 * Headers an error response carries beyond its status: `Retry-After` (whole seconds, rounded up)
 * for an error whose data says when to retry (`retryAfterMs`: a caller over its limits). The
 * legacy era answers errors in-band, with no such header.
 */
export function httpHeadersFor(era: Era, data: unknown): Record<string, string> | undefined {
  if (era === 'legacy' || typeof data !== 'object' || data === null) return undefined;
  const retryAfterMs = (data as { retryAfterMs?: unknown }).retryAfterMs;
  if (typeof retryAfterMs !== 'number' || !Number.isFinite(retryAfterMs) || retryAfterMs < 0)
    return undefined;
  return { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) };
}
