/**
 * `ProtocolError`: an error that becomes a JSON-RPC error response.
 *
 * Kept apart from ordinary `Error`s on purpose: anything thrown that is *not* a ProtocolError is a
 * bug or a tool failure, and is never shown to the client verbatim (it may carry paths or secrets).
 */
import { ErrorCode } from './error-codes.js';

export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';

  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }

  static invalidParams(message: string, data?: unknown): ProtocolError {
    return new ProtocolError(ErrorCode.InvalidParams, message, data);
  }

  static invalidRequest(message: string): ProtocolError {
    return new ProtocolError(ErrorCode.InvalidRequest, message);
  }

  static methodNotFound(method: string): ProtocolError {
    return new ProtocolError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
  }
}
