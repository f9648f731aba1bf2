/**
 * What `ctx.prompts()` offers a handler: the server's prompts, seen from inside a call. Every
 * member returns a promise, so it reads the same inline and from a pool thread or process.
 */
import type { PromptDefinition, PromptResult } from './prompt-definition.js';

export interface PromptsView {
  /** Published prompt descriptors, in name order; with `tags`, only those carrying one of them. */
  list(filter?: { tags?: readonly string[] }): Promise<object[]>;
  find(name: string): Promise<object | undefined>;
  get(name: string, args?: Record<string, string>): Promise<PromptResult>;
  /** Inline handlers only: a `get` function cannot be sent from a pool thread or process. */
  add(definition: PromptDefinition): Promise<void>;
  remove(name: string): Promise<boolean>;
}
