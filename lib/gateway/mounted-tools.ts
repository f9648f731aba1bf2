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
import type { UpstreamLink } from './upstream-link.js';

export type ToolCaller = (upstreamName: string, request: ExactCallRequest) => Promise<ExactAnswer>;

export class MountedTools {
  readonly #link: UpstreamLink;
  readonly #registry: ToolRegistry;
  readonly #transform: MountTransforms | undefined;
  readonly #call: ToolCaller;
  /** published name -> [upstream name, descriptor JSON] */
  readonly #published = new Map<string, { upstreamName: string; json: string }>();

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
        `weft gateway: could not list the tools of ${this.#link.label}: ${(error as Error).message}`,
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
      const known = this.#published.get(name);
      if (known?.json === json) continue;
      if (known) this.#registry.remove(name);
      try {
        publishMountedTool(
          this.#registry,
          descriptor,
          (request) => this.#call(tool.name, request),
          transform,
        );
        this.#published.set(name, { upstreamName: tool.name, json });
      } catch (error) {
        this.#link.logError(`weft gateway: ${(error as Error).message}`);
      }
    }
    for (const name of [...this.#published.keys()]) {
      if (seen.has(name)) continue;
      this.#published.delete(name);
      this.#registry.remove(name);
    }
  }

  /** Unmounting: every published tool leaves the listing. */
  close(): void {
    for (const name of this.#published.keys()) this.#registry.remove(name);
    this.#published.clear();
  }
}
