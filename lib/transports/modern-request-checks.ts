/**
 * The checks a 2026-07-28 request passes over HTTP before it is dispatched, in the order clients and
 * the conformance suite rely on:
 *
 *   0. every MCP header within MAX_HEADER_VALUE_LENGTH             longer  -> 400 / -32600
 *   1. an `MCP-Protocol-Version` header                          missing -> 400 / -32020
 *   2. the `_meta` envelope (version, client capabilities)       broken  -> 400 / -32602
 *   3. the header's version equals the body's                    differs -> 400 / -32020
 *   4. a version this server speaks                              unknown -> 400 / -32022
 *   5. a method the modern era has                               unknown -> 404 / -32601
 *   6. `Mcp-Method` equals the body's method                     missing or differs -> 400 / -32020
 *   7. `Mcp-Name` equals params.name / params.uri / params.taskId
 *   8. every `x-mcp-header` argument mirrored in its `Mcp-Param-<Name>`
 *
 * Headers are mirrors of the body that proxies and balancers act on; a request whose mirrors lie
 * must not run, or two parts of a deployment would act on two different requests. Header names are
 * case-insensitive (Node lowercases them), values case-sensitive, whitespace around them ignored.
 * Every step costs time linear in the headers' length (no backtracking regex reads them), and the
 * length itself is capped first.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Era } from '../protocol/eras.js';
import { readModernEnvelope } from '../protocol/eras.js';
import { ErrorCode } from '../protocol/error-codes.js';
import {
  decodeHeaderValue,
  type HeaderParam,
  headerMatchesValue,
  MAX_HEADER_VALUE_LENGTH,
  PARAM_HEADER_PREFIX,
  trimOptionalWhitespace,
} from '../protocol/mcp-param-headers.js';
import { ProtocolError } from '../protocol/protocol-error.js';

/**
 * What the HTTP transport asks of the server before it dispatches a request: its methods, the
 * tools' mirrored arguments (modern requests), and the scopes a request needs (modern requests and
 * legacy POSTs alike, so a caller lacking them gets 403 before anything runs).
 */
export interface ModernRouting {
  /** Whether the router serves `method` in `era`; a request for one it does not is never dispatched. */
  knows(method: string, era: Era): boolean;
  /** The `x-mcp-header` arguments of a registered tool; undefined when there is no such tool. */
  headerParamsOf(toolName: string): readonly HeaderParam[] | undefined;
  /**
   * The scopes of the tool, prompt or resource a request targets (tools/call, prompts/get,
   * resources/read, resources/subscribe); undefined or empty when it needs none.
   */
  requiredScopes(method: string, params: Record<string, unknown> | undefined): readonly string[] | undefined;
}

/** A refused request: the error to answer with, and whether it is about the request's own form. */
export interface Refusal {
  error: ProtocolError;
  /** True for an envelope -32602 (a malformed request, 400), as opposed to a handler's (in-band). */
  fromEnvelope: boolean;
}

/** Which `params` field `Mcp-Name` mirrors, per method. */
const NAME_SOURCE: ReadonlyMap<string, string> = new Map([
  ['tools/call', 'name'],
  ['prompts/get', 'name'],
  ['resources/read', 'uri'],
  ['tasks/get', 'taskId'],
  ['tasks/update', 'taskId'],
  ['tasks/cancel', 'taskId'],
]);

const mismatch = (message: string): Refusal => ({
  error: new ProtocolError(ErrorCode.HeaderMismatch, `Header mismatch: ${message}`),
  fromEnvelope: false,
});

const trimmed = (value: string | string[] | undefined): string | undefined => {
  const text = Array.isArray(value) ? value.join(', ') : value;
  return text === undefined ? undefined : trimOptionalWhitespace(text);
};

const PARAM_HEADER_LOWER = PARAM_HEADER_PREFIX.toLowerCase();
const isMcpHeader = (name: string) =>
  name === 'mcp-protocol-version' ||
  name === 'mcp-method' ||
  name === 'mcp-name' ||
  name.startsWith(PARAM_HEADER_LOWER);

/** Step 0: an MCP header longer than the cap is refused before anything reads it. */
function checkHeaderLengths(headers: IncomingHttpHeaders): Refusal | undefined {
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || !isMcpHeader(name)) continue;
    const length = Array.isArray(value)
      ? value.reduce((sum, part) => sum + part.length + 2, 0)
      : value.length;
    if (length > MAX_HEADER_VALUE_LENGTH) {
      return {
        error: ProtocolError.invalidRequest(
          `The ${name} header is ${length} characters long; MCP headers may carry at most ${MAX_HEADER_VALUE_LENGTH}`,
        ),
        fromEnvelope: false,
      };
    }
  }
  return undefined;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Undefined when the request may be dispatched; otherwise why not. */
export function checkModernRequest(
  headers: IncomingHttpHeaders,
  method: string,
  params: Record<string, unknown> | undefined,
  routing: ModernRouting,
): Refusal | undefined {
  const tooLong = checkHeaderLengths(headers);
  if (tooLong) return tooLong;
  const headerVersion = trimmed(headers['mcp-protocol-version']);
  if (headerVersion === undefined) {
    return mismatch(
      'the MCP-Protocol-Version header is missing; send it on every request, equal to params._meta["io.modelcontextprotocol/protocolVersion"]',
    );
  }
  const versionRefusal = checkVersions(headerVersion, params);
  if (versionRefusal) return versionRefusal;
  if (!routing.knows(method, 'modern')) {
    return { error: ProtocolError.methodNotFound(method), fromEnvelope: false };
  }
  return checkMethodAndName(headers, method, params) ?? checkParamHeaders(headers, method, params, routing);
}

/** Steps 2 to 4: the envelope's form, then header against body, then whether the version is spoken. */
function checkVersions(
  headerVersion: string,
  params: Record<string, unknown> | undefined,
): Refusal | undefined {
  try {
    const envelope = readModernEnvelope(params);
    if (envelope.version !== headerVersion) return versionMismatch(headerVersion, envelope.version);
    return undefined;
  } catch (error) {
    if (!(error instanceof ProtocolError)) throw error;
    if (error.code === ErrorCode.UnsupportedProtocolVersion) {
      // An unknown version is reported only once header and body agree on it.
      const bodyVersion = (error.data as { requested: string }).requested;
      if (bodyVersion !== headerVersion) return versionMismatch(headerVersion, bodyVersion);
      return { error, fromEnvelope: false };
    }
    return { error, fromEnvelope: true };
  }
}

function versionMismatch(header: string, body: string): Refusal {
  return mismatch(
    `MCP-Protocol-Version is ${JSON.stringify(header)} but params._meta names ${JSON.stringify(body)}; send the same version in both`,
  );
}

/** Steps 6 and 7: the standard headers every modern request mirrors. */
function checkMethodAndName(
  headers: IncomingHttpHeaders,
  method: string,
  params: Record<string, unknown> | undefined,
): Refusal | undefined {
  const methodHeader = trimmed(headers['mcp-method']);
  if (methodHeader === undefined) {
    return mismatch(`the Mcp-Method header is missing; send Mcp-Method: ${method}`);
  }
  if (methodHeader !== method) {
    return mismatch(
      `Mcp-Method is ${JSON.stringify(methodHeader)} but the body's method is ${JSON.stringify(method)} (values are case-sensitive)`,
    );
  }
  const field = NAME_SOURCE.get(method);
  const bodyName = field === undefined ? undefined : params?.[field];
  // Without a name in the body there is nothing to mirror; the method itself refuses such params.
  if (typeof bodyName !== 'string') return undefined;
  const raw = headers['mcp-name'];
  if (raw === undefined) {
    return mismatch(`the Mcp-Name header is missing; ${method} must mirror params.${field} in it`);
  }
  const decoded = decodeHeaderValue(trimmed(raw) ?? '');
  if (!decoded.ok) return mismatch(`Mcp-Name: ${decoded.problem}`);
  if (decoded.value !== bodyName) {
    return mismatch(
      `Mcp-Name is ${JSON.stringify(decoded.value)} but params.${field} is ${JSON.stringify(bodyName)}`,
    );
  }
  return undefined;
}

/** Step 8: the arguments a tool mirrors into `Mcp-Param-*` must arrive there, and only when present. */
function checkParamHeaders(
  headers: IncomingHttpHeaders,
  method: string,
  params: Record<string, unknown> | undefined,
  routing: ModernRouting,
): Refusal | undefined {
  if (method !== 'tools/call' || typeof params?.name !== 'string') return undefined;
  const mirrored = routing.headerParamsOf(params.name);
  // An unknown tool, or arguments that are not an object: tools/call itself refuses those.
  if (mirrored === undefined || mirrored.length === 0) return undefined;
  const args = params.arguments ?? {};
  if (!isPlainObject(args)) return undefined;
  for (const param of mirrored) {
    const headerName = `${PARAM_HEADER_PREFIX}${param.name}`;
    const raw = headers[headerName.toLowerCase()];
    const where = `arguments.${param.path.join('.')}`;
    const value = valueAt(args, param.path);
    if (value === undefined || value === null) {
      if (raw === undefined) continue;
      return mismatch(`${headerName} was sent but ${where} is absent; send the header only with a value`);
    }
    // A value of the wrong type is refused by the tool's schema, with a better message than ours.
    if (!hasType(value, param.type)) continue;
    if (raw === undefined) {
      return mismatch(`the ${headerName} header is missing; it must mirror ${where}`);
    }
    const decoded = decodeHeaderValue(trimmed(raw) ?? '');
    if (!decoded.ok) return mismatch(`${headerName}: ${decoded.problem}`);
    if (!headerMatchesValue(decoded.value, value, param.type)) {
      return mismatch(
        `${headerName} is ${JSON.stringify(decoded.value)} but ${where} is ${JSON.stringify(value)}`,
      );
    }
  }
  return undefined;
}

function valueAt(root: Record<string, unknown>, path: readonly string[]): unknown {
  let node: unknown = root;
  for (const key of path) {
    if (!isPlainObject(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

function hasType(value: unknown, type: HeaderParam['type']): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
  }
}
