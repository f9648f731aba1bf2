/**
 * `prompts/list` and `prompts/get`: the prompt registry seen through MCP. A prompt may ask the
 * client while it is built (ctx.elicit...), in rounds in a modern request (mrtr-rounds.ts).
 */
import type { PromptRegistry } from '../prompts/prompt-registry.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import { type MrtrRounds, runAsking } from './mrtr-rounds.js';
import { asCancellable, listingPage } from './resource-methods.js';
import type { Router } from './router.js';
import { requireScopes, visibleEntries } from './scope-check.js';

export function addPromptMethods(
  router: Router,
  registry: PromptRegistry,
  pageSize: number,
  rounds?: MrtrRounds,
  listOutOfScope = false,
): void {
  router
    .method('prompts/list', ({ params, scope }) => {
      const sorted = visibleEntries(registry.sorted(), scope, listOutOfScope);
      const { items, nextCursor } = listingPage(sorted, params.cursor, pageSize);
      return nextCursor === undefined ? { prompts: items } : { prompts: items, nextCursor };
    })
    .method('prompts/get', (ctx) => {
      const { name } = ctx.params;
      if (typeof name !== 'string') {
        throw ProtocolError.invalidParams('prompts/get needs params.name, a name from prompts/list');
      }
      const scopes = registry.scopesOf(name);
      if (scopes !== undefined) requireScopes(ctx.scope, scopes, `prompt "${name}"`);
      const args = ctx.params.arguments;
      const round = rounds?.begin(ctx, 'prompts/get', name, args ?? {});
      return asCancellable(ctx, (signal) =>
        runAsking(ctx, round, signal, (asking) => registry.get(name, args, { signal, ...asking })),
      );
    });
}
