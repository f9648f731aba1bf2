/**
 * A mounted upstream's prompts: published by the sealed exact registration
 * (prompts/exact-prompt.ts) under `namespace_name` (when a namespace is given), re-read when the
 * upstream says its prompt list changed and after every reconnection; `prompts/get` and
 * `completion/complete` for them are forwarded and the upstream's answers pass through. While the
 * upstream is down they stay listed (names are stable) and answer -32603 saying so. A modern
 * upstream's question while it builds a prompt goes to the client through the prompt's own ctx
 * (upstream-link.ts).
 */
import type { McpClient } from '../client/mcp-client.js';
import type { PromptRegistry } from '../prompts/prompt-registry.js';
import { EXACT_SEAL } from '../tools/exact-tool.js';
import { PublishedEntries } from './published-entries.js';
import { capabilityOf, forward, type UpstreamLink } from './upstream-link.js';

export class MountedPrompts {
  readonly #link: UpstreamLink;
  readonly #registry: PromptRegistry;
  /** published name -> descriptor JSON */
  readonly #published: PublishedEntries;

  constructor(link: UpstreamLink, registry: PromptRegistry) {
    this.#link = link;
    this.#registry = registry;
    this.#published = new PublishedEntries((name) => registry.remove(name));
  }

  /** Hears the client's prompt list changes. */
  attach(client: McpClient): void {
    client.on('notifications/prompts/list_changed', () => void this.sync());
  }

  async sync(): Promise<void> {
    const client = this.#link.client();
    if (!client) return;
    const prompts = capabilityOf(client, 'prompts')
      ? await client.listPrompts().catch((error: unknown) => {
          this.#link.logError(
            `weft gateway: could not list the prompts of ${this.#link.target}: ${(error as Error).message}`,
          );
          return undefined;
        })
      : [];
    if (!prompts) return;
    const namespace = this.#link.namespace;
    const seen = new Set<string>();
    for (const prompt of prompts) {
      if (typeof prompt.name !== 'string') continue;
      const upstreamName = prompt.name;
      const name = namespace === undefined ? upstreamName : `${namespace}_${upstreamName}`;
      seen.add(name);
      const descriptor = { ...prompt, name };
      const json = JSON.stringify(descriptor);
      if (!this.#published.needsPublishing(name, json)) continue;
      try {
        this.#registry.addExact(EXACT_SEAL, {
          descriptor,
          get: (args, ctx) =>
            forward(
              this.#link,
              'prompts/get',
              args === undefined ? { name: upstreamName } : { name: upstreamName, arguments: args },
              ctx.signal,
              ctx,
            ),
          complete: (params, signal) =>
            forward(
              this.#link,
              'completion/complete',
              { ...withoutMeta(params), ref: { ...(params.ref as object), name: upstreamName } },
              signal,
            ),
        });
        this.#published.published(name, json);
      } catch (error) {
        this.#link.logError(`weft gateway: ${(error as Error).message}`);
      }
    }
    this.#published.keepOnly(seen);
  }

  /** Unmounts: the prompts leave the listing. */
  close(): void {
    this.#published.clear();
  }
}

/** The client's params without its own `_meta` (weft's client puts the upstream era's envelope on). */
export function withoutMeta(params: Record<string, unknown>): Record<string, unknown> {
  const { _meta: _ignored, ...rest } = params;
  return rest;
}
