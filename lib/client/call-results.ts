/**
 * What `callTool` and `onprogress` hand the caller, as the MCP types rather than bare records, so
 * that `result.content[0].text` or `update.progress / update.total` type-checks in a user's own
 * code and tests. The shapes are the spec's `CallToolResult` and `notifications/progress` params;
 * the client passes on what the server sent and does not check it against them.
 */
import type { CallToolResult } from '../tools/content.js';

/**
 * A tool call's result: its content blocks (text, image, audio, resource link, embedded resource),
 * `structuredContent` when the tool has an output schema, `isError` when the tool failed. Other
 * members a server adds (`_meta`, a 2026-07-28 `resultType`, `ttlMs`) are kept.
 */
export interface ToolCallResult extends CallToolResult {
  [member: string]: unknown;
}

/** One `notifications/progress` for a request: how far it is, of how much, and what it is doing. */
export interface ProgressUpdate {
  progressToken: string | number;
  /** Grows with every update (the spec requires it to increase). */
  progress: number;
  total?: number;
  message?: string;
  _meta?: Record<string, unknown>;
}
