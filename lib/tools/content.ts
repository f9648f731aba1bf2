/**
 * MCP tool-result shapes (the `CallToolResult` of the spec), as plain types.
 */
export interface TextContent {
  type: 'text';
  text: string;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}
export interface ImageContent {
  type: 'image';
  data: string;
  mimeType: string;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}
export interface AudioContent {
  type: 'audio';
  data: string;
  mimeType: string;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}
export interface ResourceLinkContent {
  type: 'resource_link';
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}
export interface EmbeddedResourceContent {
  type: 'resource';
  resource: { uri: string; mimeType?: string; text?: string; blob?: string; _meta?: Record<string, unknown> };
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}
export type ContentBlock =
  | TextContent
  | ImageContent
  | AudioContent
  | ResourceLinkContent
  | EmbeddedResourceContent;

export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

export function textResult(text: string, isError = false): CallToolResult {
  return isError
    ? { content: [{ type: 'text', text }], isError: true }
    : { content: [{ type: 'text', text }] };
}

/** True for a value that already has the shape of a CallToolResult (a `content` array). */
export function isCallToolResult(value: unknown): value is CallToolResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as { content?: unknown }).content) &&
    (value as CallToolResult).content.every(
      (block) => typeof block === 'object' && block !== null && typeof block.type === 'string',
    )
  );
}
