/**
 * JSON-RPC 2.0 error codes as numbers on the wire.
 *
 * The standard ones come from the JSON-RPC spec. `Overloaded`, `ShuttingDown`, `InsufficientScope`,
 * `LimitExceeded` and `CredentialsLapsed` are weft's own, from
 * the implementation-defined range (-32000..-32019), so clients can tell "try later" apart from a bug.
 * -32020..-32022 are the 2026-07-28 specification's own codes.
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** The bounded queue of the engine is full; the call was refused at once, nothing ran. */
  Overloaded: -32010,
  /** The server is stopping: it finishes what it has, and takes nothing new. */
  ShuttingDown: -32011,
  /**
   * The caller's principal lacks a scope the tool, prompt or resource requires (`data.requiredScopes`).
   * Over HTTP the transport answers 403 `insufficient_scope` before this could be sent; WebSocket and
   * stdio, which have no status line, get this error.
   */
  InsufficientScope: -32012,
  /**
   * The caller is over one of its own limits (`limits.perCaller`); nothing ran. `data` says which
   * (`limit`, `scope`, `max`) and when a retry may pass (`retryAfterMs`).
   */
  LimitExceeded: -32013,
  /**
   * The caller's credentials lapsed while its stream was open (its token was revoked or expired):
   * the stream ends with this answer. `data.status` is what a new request with that token gets
   * (401, 403, or 503 when it could not be checked now); the client sends again with a valid token.
   */
  CredentialsLapsed: -32014,
  /**
   * Up to 2025-11-25: no resource has the URI read (the spec's own code). The 2026-07-28 era answers
   * -32602 with `data.uri` instead and must never send this one.
   */
  ResourceNotFound: -32002,
  /** 2026-07-28: an HTTP header (Mcp-Method, Mcp-Name, Mcp-Param-*, the version) disagrees with the body. */
  HeaderMismatch: -32020,
  /** 2026-07-28: the request needs a client capability its `clientCapabilities` lacks. */
  MissingRequiredClientCapability: -32021,
  /** 2026-07-28: the request's protocol version is not one this server speaks. */
  UnsupportedProtocolVersion: -32022,
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];
