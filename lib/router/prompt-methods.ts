/**
 * `prompts/list` and `prompts/get`: the prompt registry seen through MCP.
 */
import type { PromptRegistry } from '../prompts/prompt-registry.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import { asCancellable, listingPage } from './resource-methods.js';
import type { Router } from './router.js';

export function addPromptMethods(router: Router, registry: PromptRegistry, pageSize: number): void {
  router
    .method('prompts/list', ({ params }) => {
      const { items, nextCursor } = listingPage(registry.sorted(), params.cursor, pageSize);
      return nextCursor === undefined ? { prompts: items } : { prompts: items, nextCursor };
    })
    .method('prompts/get', (ctx) => {
      const { name } = ctx.params;
      if (typeof name !== 'string') {
        throw ProtocolError.invalidParams('prompts/get needs params.name, a name from prompts/list');
      }
      return asCancellable(ctx, (signal) => registry.get(name, ctx.params.arguments, signal));
    });
}
