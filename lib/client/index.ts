/// <reference types="node" preserve="true" />
// Kept in the emitted .d.ts: its types name node:http and friends, and TypeScript 7 loads no
// @types package unless something asks for it (TS2591 without "types": ["node"] in tsconfig).
/**
 * `weft-mcp/client`: an MCP client for both protocol eras over stdio, Streamable HTTP and WebSocket.
 * It imports nothing of the server (only the protocol room's pure facts), so an application that
 * only calls servers does not load the router, the engine or the pool.
 */
import type { ClientTransport } from './client-transport.js';
import { type HttpClientOptions, HttpClientTransport } from './http-client-transport.js';
import { McpClient, type McpClientOptions } from './mcp-client.js';
import { type StdioClientOptions, StdioClientTransport } from './stdio-client-transport.js';
import { WebSocketClientTransport } from './websocket-client-transport.js';

// The result shapes are plain types of the tools room: importing them loads nothing of the server.
export type {
  AudioContent,
  CallToolResult,
  ContentBlock,
  EmbeddedResourceContent,
  ImageContent,
  ResourceLinkContent,
  TextContent,
} from '../tools/content.js';
export type { ProgressUpdate, ToolCallResult } from './call-results.js';
export {
  ConnectionClosedError,
  LinkError,
  McpError,
  RequestTimeoutError,
  SessionLostError,
  UnansweredInputError,
} from './client-errors.js';
export type { ClientTransport, SendOptions, TransportReceiver } from './client-transport.js';
export type { ProtocolChoice } from './era-handshake.js';
export { type HttpClientOptions, HttpClientTransport, type TokenProvider } from './http-client-transport.js';
export type { ElicitResult, InputHandlers, Root } from './input-answers.js';
export { type CallOptions, McpClient, type McpClientOptions, type ToolCallOptions } from './mcp-client.js';
export { type StdioClientOptions, StdioClientTransport } from './stdio-client-transport.js';
export type { TaskOptions } from './task-follower.js';
export type { DroppedTool, ListedTool, ToolListing } from './tool-listing.js';
export { type WebSocketClientOptions, WebSocketClientTransport } from './websocket-client-transport.js';

/** What a client can reach: a command to spawn, an http(s) or ws(s) URL, or a ready transport. */
export type ClientTarget = StdioClientOptions | string | URL | ClientTransport;

/** The transport a target names; an http(s) URL takes `http` options (headers, token). */
export function transportFor(target: ClientTarget, http: HttpClientOptions = {}): ClientTransport {
  if (typeof target === 'string' || target instanceof URL) {
    const url = new URL(target);
    if (url.protocol === 'ws:' || url.protocol === 'wss:') return new WebSocketClientTransport(url, http);
    return new HttpClientTransport(url, http);
  }
  if ('command' in target) return new StdioClientTransport(target);
  return target;
}

/** Opens a client on `target` and completes the handshake (`await connect('http://127.0.0.1:3000/mcp')`). */
export async function connect(
  target: ClientTarget,
  options: McpClientOptions & { http?: HttpClientOptions } = {},
): Promise<McpClient> {
  const { http, ...clientOptions } = options;
  return new McpClient(transportFor(target, http), clientOptions).connect();
}
