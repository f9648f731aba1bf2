/**
 * Serving RFC 9728 Protected Resource Metadata beside the MCP endpoint: at
 * `/.well-known/oauth-protected-resource<endpoint path>` (where clients look first) and at the root
 * form. The document itself comes from the auth hook (it knows the issuer and the scopes); this
 * file only finds the paths and answers GET, with CORS headers for allowed pages (a browser client
 * reads it before it has any token, so the preflight and the answer carry no credentials).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RESOURCE_METADATA_PREFIX as PREFIX } from '../auth/canonical-resource.js';
import { ErrorCode } from '../protocol/error-codes.js';
import type { AuthHook } from './bearer-auth.js';
import { CorsPolicy } from './cors.js';
import { reply, sendJson } from './http-replies.js';

/** Whether `pathname` is where clients fetch the metadata of the endpoint at `endpointPath`. */
export function isResourceMetadataPath(pathname: string, endpointPath: string): boolean {
  return pathname === PREFIX || pathname === `${PREFIX}${endpointPath === '/' ? '' : endpointPath}`;
}

export function serveResourceMetadata(
  hook: AuthHook,
  request: IncomingMessage,
  response: ServerResponse,
  endpointPath: string,
  cors: CorsPolicy,
): void {
  cors.decorate(request, response);
  if (CorsPolicy.isPreflight(request)) {
    cors.answerPreflight(request, response);
    return;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    reply(response, 405, ErrorCode.InvalidRequest, `Method ${request.method} not allowed`, { allow: 'GET' });
    return;
  }
  const document = hook.resourceMetadata?.(request, endpointPath);
  if (document === undefined) {
    reply(response, 400, ErrorCode.InvalidRequest, 'The request names no usable Host header');
    return;
  }
  sendJson(response, 200, JSON.stringify(document), { 'cache-control': 'max-age=300' });
}
