/**
 * weft's public API.
 */

export { ErrorCode } from './protocol/error-codes.js';
export { ProtocolError } from './protocol/protocol-error.js';
export { type ListenOptions, McpServer, type McpServerOptions } from './server.js';
export type { CallToolResult, ContentBlock } from './tools/content.js';
export { CallAbandonedError, LOG_LEVELS, type LogLevel, type ToolContext } from './tools/tool-context.js';
export {
  type ArgsOf,
  type BlockingToolDefinition,
  type DefinedTool,
  defineTool,
  type InlineToolDefinition,
  type ObjectSchema,
  type OutputOf,
  type ToolAnnotations,
  type ToolDefinition,
  type ToolHandler,
  type ToolIcon,
  type ToolReturn,
  type WorkerResourceLimits,
} from './tools/tool-definition.js';
export { ToolRegistrationError } from './tools/tool-registry.js';
export type { Connection } from './transports/connection.js';
