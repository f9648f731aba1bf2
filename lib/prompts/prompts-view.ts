/**
 * What `ctx.prompts()` offers a handler: the server's prompts, seen from inside a call.
 */
import type { PromptDefinition, PromptResult } from './prompt-definition.js';

export interface PromptsView {
  /** Published prompt descriptors, in name order. */
  list(): object[];
  find(name: string): object | undefined;
  get(name: string, args?: Record<string, string>): Promise<PromptResult>;
  add(definition: PromptDefinition): void;
  remove(name: string): boolean;
}
