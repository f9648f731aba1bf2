/**
 * The errors `weft-mcp/client` raises, kept apart by where they come from (as the official SDK does):
 * `McpError` is the server's own JSON-RPC error, code and data exactly as sent; the others are the
 * client's: a request it stopped waiting for (`RequestTimeoutError`), a connection that ended
 * (`ConnectionClosedError`), a wire that failed under a request (`LinkError`: the server could not be
 * reached, or its answer stream broke off), a legacy session the server no longer knows
 * (`SessionLostError`, its 404), a question from the server it has no handler for
 * (`UnansweredInputError`). A cancelled request rejects with the signal's reason.
 */

/** A JSON-RPC error the server answered with. */
export class McpError extends Error {
  override readonly name = 'McpError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** The client gave up waiting: the request's `timeoutMs` passed (the server was told to cancel). */
export class RequestTimeoutError extends Error {
  override readonly name = 'RequestTimeoutError';
  constructor(
    readonly method: string,
    readonly timeoutMs: number,
  ) {
    super(`${method} got no answer within ${timeoutMs} ms; the request was cancelled`);
  }
}

/** The transport ended while the request waited, or before it was sent. */
export class ConnectionClosedError extends Error {
  override readonly name = 'ConnectionClosedError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * The wire failed under one request: the server could not be reached, or the stream carrying the
 * answer broke off. Whether the request ran is unknown; a gateway reads it as a lost link.
 */
export class LinkError extends Error {
  override readonly name = 'LinkError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * A legacy-era server answered 404 to a request that carried session `sessionId`: it no longer
 * knows that session (it restarted, or expired it). The request was refused before it ran, so it
 * may be sent again on a new session (link-recovery.ts does that once).
 */
export class SessionLostError extends Error {
  override readonly name = 'SessionLostError';
  constructor(
    readonly sessionId: string,
    message: string,
  ) {
    super(message);
  }
}

/** The server asked a question (elicitation, sampling, roots) this client has no handler for. */
export class UnansweredInputError extends Error {
  override readonly name = 'UnansweredInputError';
  constructor(readonly method: string) {
    super(
      `the server asked ${method}, and this client has no handler for it; register one in the client's ` +
        'options (onElicitation, onSampling, roots)',
    );
  }
}
