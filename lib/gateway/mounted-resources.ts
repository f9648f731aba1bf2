/**
 * A mounted upstream's resources and resource templates: published by the sealed exact
 * registrations (resources/exact-resource.ts) under the URIs resource-uris.ts gives them, re-read
 * when the upstream says its resource list changed and after every reconnection. Reads and
 * template completions are forwarded, and the upstream's answers pass through (only each
 * contents' `uri` is translated to its published form).
 *
 * Subscriptions: while some client of weft subscribes to a mounted URI (legacy
 * resources/subscribe, or a modern listen stream naming it), the gateway holds one upstream
 * subscription for it in the upstream's era, shared, bounded and released when the last subscriber
 * leaves (upstream-subscriptions.ts); the upstream's notifications/resources/updated become weft's
 * own `resourceUpdated`, which reaches exactly the weft clients subscribed to that URI.
 */
import type { McpClient } from '../client/mcp-client.js';
import type { ReadContext, ResourceContents } from '../resources/resource-definition.js';
import type { ResourceRegistry } from '../resources/resource-registry.js';
import { EXACT_SEAL } from '../tools/exact-tool.js';
import { withoutMeta } from './mounted-prompts.js';
import { PublishedEntries } from './published-entries.js';
import { ResourceUris } from './resource-uris.js';
import { capabilityOf, forward, type UpstreamLink } from './upstream-link.js';
import { UpstreamSubscriptions } from './upstream-subscriptions.js';

type Listed = Record<string, unknown>;

export class MountedResources {
  readonly #link: UpstreamLink;
  readonly #registry: ResourceRegistry;
  readonly #updated: (uri: string) => void;
  readonly #uris: ResourceUris;
  /** Published URIs and templates. */
  readonly #published: PublishedEntries;
  /** The upstream subscriptions held for weft's subscribers. */
  readonly #subscriptions: UpstreamSubscriptions;
  #warned = false;

  constructor(
    link: UpstreamLink,
    registry: ResourceRegistry,
    updated: (uri: string) => void,
    maxWatchedUris?: number,
  ) {
    this.#link = link;
    this.#subscriptions = new UpstreamSubscriptions(link, maxWatchedUris);
    this.#registry = registry;
    this.#updated = updated;
    this.#uris = new ResourceUris(link.namespace);
    this.#published = new PublishedEntries((key) => registry.remove(key));
  }

  /** Hears the client's resource list changes and updates. */
  attach(client: McpClient): void {
    client.on('notifications/resources/list_changed', () => void this.sync());
    client.on('notifications/resources/updated', (params) => {
      if (typeof params.uri !== 'string') return;
      const published = this.#uris.publish(params.uri);
      if (published !== undefined) this.#updated(published);
    });
  }

  /** The connection is up (again): renews the upstream subscriptions someone still holds. */
  connected(): void {
    this.#subscriptions.connected();
  }

  /** The connection went down: its upstream subscriptions end with it. */
  disconnected(): void {
    this.#subscriptions.disconnected();
  }

  /** Upstream URIs watched now for weft's subscribers. */
  get watchedUris(): number {
    return this.#subscriptions.size;
  }

  async sync(): Promise<void> {
    const client = this.#link.client();
    if (!client) return;
    const offered = capabilityOf(client, 'resources') !== undefined;
    const list = (what: Promise<Listed[]>, kind: string) =>
      what.catch((error: unknown) => {
        this.#link.logError(
          `weft gateway: could not list the ${kind} of ${this.#link.target}: ${(error as Error).message}`,
        );
        return undefined;
      });
    const [resources, templates] = await Promise.all([
      offered ? list(client.listResources(), 'resources') : [],
      offered ? list(client.listResourceTemplates(), 'resource templates') : [],
    ]);
    if (!resources || !templates) return;
    if (this.#uris.problem && resources.length + templates.length > 0) {
      if (!this.#warned) this.#link.logError(`weft gateway: ${this.#uris.problem} (${this.#link.target})`);
      this.#warned = true;
      return;
    }
    const seen = new Set<string>();
    for (const resource of resources) this.#publish(resource, 'uri', seen);
    for (const template of templates) this.#publish(template, 'uriTemplate', seen);
    this.#published.keepOnly(seen);
  }

  #publish(listed: Listed, field: 'uri' | 'uriTemplate', seen: Set<string>): void {
    const upstreamKey = listed[field];
    if (typeof upstreamKey !== 'string') return;
    const key = this.#uris.publish(upstreamKey);
    if (key === undefined) {
      this.#link.logError(
        `weft gateway: ${upstreamKey} of ${this.#link.target} has no URI scheme to put namespace "${this.#link.namespace}" on; not mounted`,
      );
      return;
    }
    seen.add(key);
    const descriptor = { ...listed, [field]: key };
    const json = JSON.stringify(descriptor);
    if (!this.#published.needsPublishing(key, json)) return;
    const source = {
      read: (uri: string, ctx: ReadContext) => this.#read(uri, ctx),
      watch: (uri: string) => this.#watch(uri),
    };
    try {
      if (field === 'uri') {
        this.#registry.addExact(EXACT_SEAL, { ...source, descriptor: descriptor as never });
      } else {
        this.#registry.addExactTemplate(EXACT_SEAL, {
          ...source,
          descriptor: descriptor as never,
          complete: (params, signal) =>
            forward(
              this.#link,
              'completion/complete',
              { ...withoutMeta(params), ref: { ...(params.ref as object), uri: upstreamKey } },
              signal,
            ),
        });
      }
      this.#published.published(key, json);
    } catch (error) {
      this.#link.logError(`weft gateway: ${(error as Error).message}`);
    }
  }

  async #read(uri: string, ctx: ReadContext): Promise<ResourceContents[]> {
    const params = { uri: this.#uris.upstream(uri) };
    const result = await forward(this.#link, 'resources/read', params, ctx.signal, ctx);
    const contents = Array.isArray(result.contents) ? (result.contents as ResourceContents[]) : [];
    return contents.map((part) => {
      const published = typeof part?.uri === 'string' ? this.#uris.publish(part.uri) : undefined;
      return published === undefined || published === part.uri ? part : { ...part, uri: published };
    });
  }

  #watch(publishedUri: string): () => void {
    return this.#subscriptions.acquire(this.#uris.upstream(publishedUri));
  }

  /** Unmounts: the resources and templates leave the listing, the upstream streams end. */
  close(): void {
    this.#subscriptions.close();
    this.#published.clear();
  }
}
