/**
 * What `ctx.prompts()` offers a handler: the server's prompts, seen from inside a call. Every
 * member returns a promise, so it reads the same inline and from a pool thread or process.
 */
import type { PromptDefinition, PromptResult } from './prompt-definition.js';

/** A `Prompt` of `prompts/list`, as published (its completers and scopes stay on the server). */
export interface PromptDescriptor {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly arguments?: readonly { name: string; description?: string; required?: boolean }[];
  readonly [extra: string]: unknown;
}

export interface PromptsView {
  /**
   * Published prompt descriptors, in name order, those the caller's scopes reach (as its own
   * prompts/list); with `tags`, only those carrying one of them.
   */
  list(filter?: { tags?: readonly string[] }): Promise<PromptDescriptor[]>;
  find(name: string): Promise<PromptDescriptor | undefined>;
  get(name: string, args?: Record<string, string>): Promise<PromptResult>;
  /** Inline handlers only: a `get` function cannot be sent from a pool thread or process. */
  add(definition: PromptDefinition): Promise<void>;
  remove(name: string): Promise<boolean>;
}
