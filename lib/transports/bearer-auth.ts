/**
 * The `auth` hook of the HTTP transports, and a ready-made bearer-token check.
 *
 * A hook sees the raw request and answers `true` (go on) or a refusal with its HTTP status; it is
 * replaceable on purpose: a remote deployment plugs in its own OAuth resource-server check, a local
 * one usually needs none (the origin guard and a loopback bind protect it).
 */
import type { IncomingMessage } from 'node:http';

export interface AuthRefusal {
  status: 401 | 403;
  message: string;
  headers?: Record<string, string>;
}

export type AuthHook = (request: IncomingMessage) => true | AuthRefusal | Promise<true | AuthRefusal>;

export interface BearerAuthOptions {
  /** Sent in `WWW-Authenticate` so clients know where to get a token (RFC 9728). */
  resourceMetadataUrl?: string;
  realm?: string;
}

/** Accepts requests whose `Authorization: Bearer <token>` passes `verify`; refuses others with 401. */
export function bearerAuth(
  verify: (token: string) => boolean | Promise<boolean>,
  options: BearerAuthOptions = {},
): AuthHook {
  const challenge = [
    `Bearer realm="${options.realm ?? 'mcp'}"`,
    ...(options.resourceMetadataUrl ? [`resource_metadata="${options.resourceMetadataUrl}"`] : []),
  ].join(', ');
  return async (request) => {
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) {
      return { status: 401, message: 'Missing bearer token', headers: { 'www-authenticate': challenge } };
    }
    if (!(await verify(match[1]!))) {
      return {
        status: 401,
        message: 'Invalid or expired bearer token',
        headers: { 'www-authenticate': `${challenge}, error="invalid_token"` },
      };
    }
    return true;
  };
}
