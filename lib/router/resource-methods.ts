/**
 * `resources/list`, `resources/templates/list`, `resources/read`, `resources/subscribe` and
 * `resources/unsubscribe`: the resource registry seen through MCP.
 *
 * Reads run like calls: they are in flight under their request id, so `notifications/cancelled`
 * (or the peer going away) aborts the reader's signal and no response is sent. A reader may ask
 * the client (ctx.elicit...), in rounds in a modern request (mrtr-rounds.ts).
 */
import { ProtocolError } from '../protocol/protocol-error.js';
import type { ResourceRegistry } from '../resources/resource-registry.js';
import { decodeCursor, encodeCursor, firstAfter } from './cursor.js';
import { type MethodContext, NO_RESPONSE } from './method-table.js';
import { type MrtrRounds, runAsking } from './mrtr-rounds.js';
import type { Router } from './router.js';
import { requireScopes, visibleEntries } from './scope-check.js';

/** One page of a listing kept in a stable order of unique keys. */
export function listingPage(
  sorted: readonly { name: string; descriptor: object }[],
  cursor: unknown,
  pageSize: number,
): { items: object[]; nextCursor?: string } {
  const start = cursor === undefined ? 0 : firstAfter(sorted, decodeCursor(cursor));
  const page = sorted.slice(start, start + pageSize);
  const result: { items: object[]; nextCursor?: string } = { items: page.map((entry) => entry.descriptor) };
  if (start + pageSize < sorted.length && page.length > 0)
    result.nextCursor = encodeCursor(page.at(-1)!.name);
  return result;
}

/** Runs a cancellable request handler: aborted by a cancel or a closed session, then answered with nothing. */
export async function asCancellable<T>(
  { session, request }: MethodContext,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<T | typeof NO_RESPONSE> {
  const cancellation = session.begin(request.id);
  try {
    const value = await run(cancellation.signal);
    return cancellation.cancelled ? NO_RESPONSE : value;
  } catch (error) {
    if (cancellation.cancelled) return NO_RESPONSE;
    throw error;
  } finally {
    session.end(request.id);
  }
}

export function addResourceMethods(
  router: Router,
  registry: ResourceRegistry,
  pageSize: number,
  rounds?: MrtrRounds,
  listOutOfScope = false,
): void {
  const keyed = (entries: readonly { key: string; descriptor: object }[]) =>
    entries.map(({ key, descriptor }) => ({ name: key, descriptor }));
  /** A read or subscription of `uri` needs the scopes of what answers it. */
  const checkScopes = (ctx: Pick<MethodContext, 'scope'>, uri: string) => {
    const scopes = registry.scopesOf(uri);
    if (scopes !== undefined) requireScopes(ctx.scope, scopes, `resource ${uri}`);
  };

  router
    .method('resources/list', ({ params, scope }) => {
      const visible = visibleEntries(registry.sortedResources(), scope, listOutOfScope);
      const { items, nextCursor } = listingPage(keyed(visible), params.cursor, pageSize);
      return nextCursor === undefined ? { resources: items } : { resources: items, nextCursor };
    })
    .method('resources/templates/list', ({ params, scope }) => {
      const visible = visibleEntries(registry.sortedTemplates(), scope, listOutOfScope);
      const { items, nextCursor } = listingPage(keyed(visible), params.cursor, pageSize);
      return nextCursor === undefined
        ? { resourceTemplates: items }
        : { resourceTemplates: items, nextCursor };
    })
    .method('resources/read', (ctx) => {
      const uri = requireUri(ctx.params, 'resources/read');
      checkScopes(ctx, uri);
      const round = rounds?.begin(ctx, 'resources/read', uri, {});
      return asCancellable(ctx, (signal) =>
        runAsking(ctx, round, signal, async (asking) => ({
          contents: await registry.read(uri, { signal, ...asking }),
        })),
      );
    })
    .method('resources/subscribe', (ctx) => {
      const { session, params } = ctx;
      const uri = requireUri(params, 'resources/subscribe');
      if (!registry.has(uri)) {
        throw ProtocolError.invalidParams(`Cannot subscribe to ${uri}: no resource has that URI`);
      }
      checkScopes(ctx, uri);
      if (!session.subscriptions.has(uri)) session.subscriptions.set(uri, registry.watch(uri));
      return {};
    })
    .method('resources/unsubscribe', ({ session, params }) => {
      const uri = requireUri(params, 'resources/unsubscribe');
      session.subscriptions.get(uri)?.();
      session.subscriptions.delete(uri);
      return {};
    });
}

function requireUri(params: Record<string, unknown>, method: string): string {
  if (typeof params.uri !== 'string' || params.uri === '') {
    throw ProtocolError.invalidParams(`${method} needs params.uri, a URI from resources/list`);
  }
  return params.uri;
}
