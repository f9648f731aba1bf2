/**
 * The RFC 9728 Protected Resource Metadata document: what a client fetches after a 401 to learn
 * which authorization server issues tokens for this resource and which scopes exist. Its
 * `resource` is the canonical URL, the same value the audience check compares tokens against.
 */

export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  bearer_methods_supported: ['header'];
  scopes_supported?: string[];
  resource_name?: string;
}

export function protectedResourceMetadata(parts: {
  resource: string;
  issuer: string;
  scopesSupported?: readonly string[] | undefined;
  resourceName?: string | undefined;
}): ProtectedResourceMetadata {
  return {
    resource: parts.resource,
    authorization_servers: [parts.issuer],
    // Tokens travel in the Authorization header only: never a query string, never a form body.
    bearer_methods_supported: ['header'],
    ...(parts.scopesSupported ? { scopes_supported: [...parts.scopesSupported] } : {}),
    ...(parts.resourceName !== undefined ? { resource_name: parts.resourceName } : {}),
  };
}
