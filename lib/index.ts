/// <reference types="node" preserve="true" />
// Kept in the emitted .d.ts: its types name node:http and friends, and TypeScript 7 loads no
// @types package unless something asks for it (TS2591 without "types": ["node"] in tsconfig).
/**
 * weft's public API.
 */

export { type OAuthResourceServer, oauthResourceServer } from './auth/oauth-resource-server.js';
export { makePrincipal, type Principal, principalKey } from './auth/principal.js';
export type { ProtectedResourceMetadata } from './auth/protected-resource-metadata.js';
export type { OAuthResourceServerOptions } from './auth/resource-server-options.js';
export type { FleetOptions } from './engine/fleet-options.js';
export type { MountedUpstream, MountOptions } from './gateway/mounted-upstream.js';
export type { CommandUpstream, Upstream, UrlUpstream } from './gateway/upstream-target.js';
export type { HealthOptions } from './health/health-options.js';
export {
  type RequestLogEntry,
  type RequestLoggingOptions,
  type ResponseCacheOptions,
  type ResultSizeLimitOptions,
  requestLogging,
  responseCache,
  resultSizeLimit,
} from './middleware/index.js';
export type {
  PromptArgument,
  PromptContext,
  PromptDefinition,
  PromptMessage,
  PromptResult,
  PromptReturn,
} from './prompts/prompt-definition.js';
export type { SchemaPromptDefinition } from './prompts/prompt-schema.js';
export type { PromptDescriptor, PromptsView } from './prompts/prompts-view.js';
export type { CacheScope, Era } from './protocol/eras.js';
export { ErrorCode } from './protocol/error-codes.js';
export { ProtocolError } from './protocol/protocol-error.js';
export type {
  Completer,
  ReadContext,
  ReadReturn,
  ResourceContents,
  ResourceDefinition,
  ResourceTemplateDefinition,
} from './resources/resource-definition.js';
export { RESOURCE_NOT_FOUND } from './resources/resource-registry.js';
export type { ResourceDescriptor, ResourcesView, TemplateDescriptor } from './resources/resources-view.js';
export type { CacheHint, CacheOptions } from './router/cache-hints.js';
export { NO_RESPONSE as NO_ANSWER } from './router/method-table.js';
export type {
  Middleware,
  MiddlewareContext,
  MiddlewareHook,
  MiddlewareHooks,
  Next,
} from './router/middleware-chain.js';
export { type ListenOptions, McpServer, type McpServerOptions, type StdioListenOptions } from './server.js';
export type { TaskOptions } from './server-options.js';
export { SkillRegistrationError } from './skills/skill-catalog.js';
export { MemoryTaskStore } from './tasks/memory-task-store.js';
export { RedisTaskStore, type RedisTaskStoreOptions } from './tasks/redis-task-store.js';
export type { TaskLimits } from './tasks/task-limits.js';
export type { TaskChange, TaskRecord, TaskStatus } from './tasks/task-record.js';
export type { TaskSignal, TaskStore } from './tasks/task-store.js';
export { audioContent, type Bytes, blobResource, imageContent } from './tools/binary-content.js';
export {
  type AskOptions,
  type InputRequiredReturn,
  inputRequired,
  type Question,
  type QuestionMethod,
} from './tools/client-questions.js';
export type { CallToolResult, ContentBlock } from './tools/content.js';
export type { ToolDescriptor } from './tools/registered-tool.js';
export type { InferInput, InferOutput, StandardSchemaV1 } from './tools/standard-schema.js';
export {
  CallAbandonedError,
  type ClientAsking,
  type ElicitParams,
  type ElicitResult,
  LOG_LEVELS,
  type LogLevel,
  MissingClientCapabilityError,
  type RootsResult,
  type SampleParams,
  type SampleResult,
  type ToolContext,
  type ToolsView,
} from './tools/tool-context.js';
export {
  type ArgsOf,
  type BlockingToolDefinition,
  type DefinedTool,
  defineTool,
  type InlineToolDefinition,
  type ObjectSchema,
  type OutputOf,
  type Placement,
  type ToolAnnotations,
  type ToolDefinition,
  type ToolHandler,
  type ToolIcon,
  type ToolReturn,
  type ToolSchema,
  type WorkerResourceLimits,
} from './tools/tool-definition.js';
export { ToolRegistrationError } from './tools/tool-registry.js';
export { type ArgumentTransform, type ToolTransform, transformTool } from './tools/transform-tool.js';
export {
  type AuthGrant,
  type AuthHook,
  type AuthRefusal,
  type AuthTableSizes,
  type AuthVerdict,
  type BearerAuthOptions,
  bearerAuth,
} from './transports/bearer-auth.js';
export type { Connection } from './transports/connection.js';
export type { OriginGuardOptions } from './transports/origin-guard.js';
export type {
  HttpListenOptions,
  HttpRequestHandler,
  StreamableHttpOptions,
} from './transports/streamable-http.js';
export type { WebSocketListenOptions, WebSocketOptions } from './transports/websocket.js';
