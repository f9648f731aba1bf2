/**
 * A mounted upstream's tools in weft's registry: published as exact tools under `namespace_`
 * (when given) with their transforms (mounted-transform.ts), re-read whenever the upstream says its
 * list changed and after every reconnection, so weft's registry tells weft's clients
 * (list_changed). A tool whose descriptor is unchanged is left alone; while the upstream is down
 * the tools stay listed, so names are stable. Each call goes to `call` (forward-tool-call.ts).
 */
import type { McpClient } from '../client/mcp-client.js';
import type { ExactAnswer, ExactCallRequest } from '../tools/exact-tool.js';
import type { ToolDescriptor } from '../tools/registered-tool.js';
import type { ToolRegistry } from '../tools/tool-registry.js';
import { type MountTransforms, publishedName, publishMountedTool } from './mounted-transform.js';
import { PublishedEntries } from './published-entries.js';
import type { UpstreamLink } from './upstream-link.js';

export type ToolCaller = (upstreamName: string, request: ExactCallRequest) => Promise<ExactAnswer>;

export class MountedTools {
  readonly #link: UpstreamLink;
  readonly #registry: ToolRegistry;
  readonly #transform: MountTransforms | undefined;
  readonly #call: ToolCaller;
  readonly #published: PublishedEntries;

  constructor(
    link: UpstreamLink,
    registry: ToolRegistry,
    transform: MountTransforms | undefined,
    call: ToolCaller,
  ) {
    this.#link = link;
    this.#registry = registry;
    this.#transform = transform;
    this.#call = call;
    this.#published = new PublishedEntries((name) => registry.remove(name));
  }

  /** Hears the client's tool list changes. */
  attach(client: McpClient): void {
    client.on('notifications/tools/list_changed', () => void this.sync());
  }

  async sync(): Promise<void> {
    const client = this.#link.client();
    if (!client) return;
    const tools = await client.listTools({ refresh: true }).catch((error: unknown) => {
      this.#link.logError(
        `weft gateway: could not list the tools of ${this.#link.target}: ${(error as Error).message}`,
      );
      return undefined;
    });
    if (!tools) return;
    const prefix = this.#link.namespace === undefined ? '' : `${this.#link.namespace}_`;
    const seen = new Set<string>();
    for (const tool of tools) {
      const transform = this.#transform?.[tool.name];
      const name = publishedName(tool.name, prefix, transform);
      seen.add(name);
      const descriptor = { ...tool, name } as ToolDescriptor;
      const json = JSON.stringify(descriptor);
      if (!this.#published.needsPublishing(name, json)) continue;
      try {
        publishMountedTool(
          this.#registry,
          descriptor,
          (request) => this.#call(tool.name, request),
          transform,
        );
        this.#published.published(name, json);
      } catch (error) {
        this.#link.logError(`weft gateway: ${(error as Error).message}`);
      }
    }
    this.#published.keepOnly(seen);
  }

  /** Unmounting: every published tool leaves the listing. */
  close(): void {
    this.#published.clear();
  }
}
