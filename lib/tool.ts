/// <reference types="node" preserve="true" />
// Kept in the emitted .d.ts: its types name node:http and friends, and TypeScript 7 loads no
// @types package unless something asks for it (TS2591 without "types": ["node"] in tsconfig).
/**
 * `weft-mcp/tool`: what a tool module needs, and nothing heavier. Pool workers import tool modules, so
 * this entry must not pull in the server, the router or the worker pool.
 */

export { audioContent, type Bytes, blobResource, imageContent } from './tools/binary-content.js';
export { type AskOptions, type InputRequiredReturn, inputRequired } from './tools/client-questions.js';
export type { CallToolResult, ContentBlock } from './tools/content.js';
export type { InferInput, InferOutput, StandardSchemaV1 } from './tools/standard-schema.js';
export {
  CallAbandonedError,
  type LogLevel,
  MissingClientCapabilityError,
  type ToolContext,
} from './tools/tool-context.js';
export type {
  ArgsOf,
  BeforeTask,
  BeforeTaskContext,
  DefinedTool,
  ObjectSchema,
  OutputOf,
  TaskSupport,
  ToolDefinition,
  ToolHandler,
  ToolReturn,
  ToolSchema,
} from './tools/tool-definition.js';
export { defineTool } from './tools/tool-definition.js';
