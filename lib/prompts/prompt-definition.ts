/**
 * What a user writes to publish a prompt, and how whatever `get` returns becomes a
 * `prompts/get` result.
 *
 * `get` may return a string (one user message of text), an array of messages, or
 * `{ description?, messages }`. Arguments are strings, as the spec has them; required ones are
 * checked before `get` runs so a handler never sees a missing one.
 */

import type { Completer } from '../resources/resource-definition.js';
import type { ContentBlock } from '../tools/content.js';
import type { ClientAsking } from '../tools/tool-context.js';

export interface PromptMessage {
  role: 'user' | 'assistant';
  content: ContentBlock;
}

export interface PromptResult {
  description?: string;
  messages: PromptMessage[];
  _meta?: Record<string, unknown>;
}

export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
  /** Suggestions for this argument (`completion/complete` with `ref/prompt`). */
  complete?: Completer;
}

export type PromptReturn = string | PromptMessage[] | PromptResult;

export interface PromptContext extends ClientAsking {
  /** Aborts when the client cancels the request or goes away. */
  signal: AbortSignal;
}

export interface PromptDefinition {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: { src: string; mimeType?: string; sizes?: string[] }[];
  _meta?: Record<string, unknown>;
  /**
   * Labels for the server's own use (enable or disable by tag, `ctx.*().list({ tags })`); never
   * published: put them in `_meta` too if clients should see them.
   */
  tags?: readonly string[];
  /**
   * OAuth scopes a caller must hold, all of them, to see and get this prompt (checked only for
   * callers with a principal); never published. See docs/authorization.md.
   */
  scopes?: readonly string[];
  /** `ctx.elicit` / `ctx.sample` / `ctx.roots` ask the client, in rounds in a 2026-07-28 request. */
  get(args: Record<string, string>, ctx: PromptContext): PromptReturn | Promise<PromptReturn>;
}

export function toPromptResult(name: string, value: PromptReturn): PromptResult {
  if (typeof value === 'string')
    return { messages: [{ role: 'user', content: { type: 'text', text: value } }] };
  if (Array.isArray(value)) return { messages: value };
  if (typeof value === 'object' && value !== null && Array.isArray(value.messages)) return value;
  throw new TypeError(
    `Prompt "${name}" returned ${typeof value}; return a string, messages, or { messages }`,
  );
}
