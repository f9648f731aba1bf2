/**
 * JSON-RPC 2.0 error codes as numbers on the wire.
 *
 * The standard ones come from the JSON-RPC spec; `Overloaded` is weft's own, taken from the
 * implementation-defined range (-32000..-32019) so clients can tell "try later" apart from a bug.
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
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];
