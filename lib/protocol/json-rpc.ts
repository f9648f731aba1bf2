/**
 * JSON-RPC 2.0 message shapes and the one function that sorts a parsed value into them.
 *
 * Classification never throws: every malformed input becomes an `invalid` entry carrying the
 * error to answer with, so a transport can always reply (with `id: null` when no usable id exists)
 * instead of dropping a line or the connection.
 */
import { ErrorCode } from './error-codes.js';
import { ProtocolError } from './protocol-error.js';

export type RequestId = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcSuccess {
  jsonrpc: '2.0';
  id: RequestId;
  result: unknown;
}

export interface JsonRpcFailure {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: { code: number; message: string; data?: unknown };
}

export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

export type Classified =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; message: JsonRpcResponse }
  | { kind: 'invalid'; id: RequestId | null; error: ProtocolError };

function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sorts one parsed JSON value (not an array: batches are split by the caller). */
export function classify(value: unknown): Classified {
  if (!isPlainObject(value)) {
    return invalid(null, 'A JSON-RPC message must be a JSON object');
  }
  const id = isRequestId(value.id) ? value.id : null;
  if (value.jsonrpc !== '2.0') {
    return invalid(id, 'The "jsonrpc" member must be exactly "2.0"');
  }
  if ('method' in value) {
    if (typeof value.method !== 'string' || value.method.length === 0) {
      return invalid(id, 'The "method" member must be a non-empty string');
    }
    if (value.params !== undefined && !isPlainObject(value.params)) {
      return invalid(id, 'MCP "params" must be a JSON object when present');
    }
    const params = value.params as Record<string, unknown> | undefined;
    if (!('id' in value)) {
      return { kind: 'notification', message: { jsonrpc: '2.0', method: value.method, params } };
    }
    if (id === null) {
      return invalid(null, 'A request "id" must be a string or a number (null is not allowed in MCP)');
    }
    return { kind: 'request', message: { jsonrpc: '2.0', id, method: value.method, params } };
  }
  if (id !== null && ('result' in value || isPlainObject(value.error))) {
    return { kind: 'response', message: value as unknown as JsonRpcResponse };
  }
  return invalid(id, 'Not a JSON-RPC request, notification or response');
}

function invalid(id: RequestId | null, message: string): Classified {
  return { kind: 'invalid', id, error: new ProtocolError(ErrorCode.InvalidRequest, message) };
}

export function success(id: RequestId, result: unknown): JsonRpcSuccess {
  return { jsonrpc: '2.0', id, result };
}

export function failure(id: RequestId | null, error: ProtocolError): JsonRpcFailure {
  const body: JsonRpcFailure['error'] = { code: error.code, message: error.message };
  if (error.data !== undefined) body.data = error.data;
  return { jsonrpc: '2.0', id, error: body };
}

export function notification(method: string, params?: Record<string, unknown>): JsonRpcNotification {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
}

export const parseError = (detail: string): JsonRpcFailure =>
  failure(null, new ProtocolError(ErrorCode.ParseError, `Parse error: ${detail}`));
