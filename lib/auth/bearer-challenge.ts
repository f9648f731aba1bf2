/**
 * The `WWW-Authenticate: Bearer ...` challenge of a refusal (RFC 6750 §3, RFC 9728 §5.1): where the
 * resource's metadata is, the scopes to ask for, and, when a token was sent, what was wrong with it.
 * A client reads `resource_metadata` to start discovery and `scope` to know what to request.
 */

export interface ChallengeParts {
  resourceMetadata: string;
  scopes?: readonly string[];
  error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope';
  description?: string;
}

/** A quoted-string value (RFC 9110 §5.6.4): backslash and quote escaped. */
function quoted(value: string): string {
  return `"${value.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
}

export function bearerChallenge(parts: ChallengeParts): string {
  const params = [`resource_metadata=${quoted(parts.resourceMetadata)}`];
  if (parts.scopes && parts.scopes.length > 0) params.push(`scope=${quoted(parts.scopes.join(' '))}`);
  if (parts.error) params.push(`error=${quoted(parts.error)}`);
  if (parts.description) params.push(`error_description=${quoted(parts.description)}`);
  return `Bearer ${params.join(', ')}`;
}
