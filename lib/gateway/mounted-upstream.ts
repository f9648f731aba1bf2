/**
 * One upstream server mounted into a weft server: the connection to it, kept up, and the pieces
 * that publish what it offers on that connection.
 *
 * - This module owns the connection: connect (era probed or chosen), the modern upstream's
 *   `subscriptions/listen` stream for the list changes it offers, and death: weft reconnects with
 *   backoff (100 ms doubling to `maxBackoffMs`, 5 s by default) and re-reads every listing; what was
 *   published stays listed meanwhile, so names are stable, and calls answer -32603 naming the
 *   upstream.
 * - Tools: mounted-tools.ts (listing sync) and forward-tool-call.ts (each call, with its deadline,
 *   cancel, progress and the caller's own capabilities). Prompts, resources and templates:
 *   mounted-prompts.ts and mounted-resources.ts. All reach the connection through one
 *   UpstreamLink (upstream-link.ts).
 * - Tasks are forwarded, not re-run (forwarded-tasks.ts; UpstreamTaskRoutes remembers whose task
 *   it is); a legacy caller's task on a modern upstream is bridged (legacy-task-bridge.ts).
 * - Questions reach the client in the client's era (question-relay.ts). Logs and the legacy
 *   upstream's questions carry no request id: they go to the most recent call in flight on this
 *   upstream (exact with one call at a time; a documented limit beyond).
 */
import { McpClient } from '../client/mcp-client.js';
import type { ForwardedCaller } from '../router/task-methods.js';
import type { ExactCallRequest } from '../tools/exact-tool.js';
import type { ToolRegistry } from '../tools/tool-registry.js';
import { forwardToolCall } from './forward-tool-call.js';
import { type ForwardedTaskMethod, forwardTask } from './forwarded-tasks.js';
import { checkMountOptions, type MountOptions, type MountPrimitives } from './mount-options.js';
import { MountedPrompts } from './mounted-prompts.js';
import { MountedResources } from './mounted-resources.js';
import { MountedTools } from './mounted-tools.js';
import { relayQuestions } from './question-relay.js';
import type { UpstreamLink } from './upstream-link.js';
import { describeUpstream, transportOf, type Upstream } from './upstream-target.js';
import { UpstreamTaskRoutes } from './upstream-task-routes.js';

export type { MountOptions, MountPrimitives } from './mount-options.js';

export class MountedUpstream {
  readonly label: string;
  readonly #upstream: Upstream;
  readonly #options: MountOptions;
  readonly #logError: (message: string) => void;
  readonly #link: UpstreamLink;
  readonly #inFlight: ExactCallRequest[] = [];
  /** The tasks this upstream created for the gateway's callers, and whose each is. */
  readonly #taskRoutes = new UpstreamTaskRoutes();
  #client: McpClient | undefined;
  #down: string | undefined = 'not connected yet';
  #closed = false;
  #backoffMs = 100;
  #listen: AbortController | undefined;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #connected: Promise<void> | undefined;
  readonly #tools: MountedTools;
  readonly #prompts: MountedPrompts | undefined;
  readonly #resources: MountedResources | undefined;

  constructor(
    upstream: Upstream,
    options: MountOptions,
    registry: ToolRegistry,
    logError: (m: string) => void,
    primitives?: MountPrimitives,
  ) {
    checkMountOptions(options);
    transportOf(upstream); // refuses an upstream of the wrong shape now, not at the first connection
    this.#upstream = upstream;
    this.#options = options;
    this.#logError = logError;
    this.label = describeUpstream(upstream);
    const link: UpstreamLink = {
      label: this.label,
      namespace: options.namespace,
      client: () => this.#client,
      down: () => this.#down,
      logError,
    };
    this.#link = link;
    const seat = { routes: this.#taskRoutes, inFlight: this.#inFlight };
    this.#tools = new MountedTools(link, registry, options.transform, (upstreamName, request) =>
      forwardToolCall(link, seat, upstreamName, request),
    );
    if (primitives) {
      this.#prompts = new MountedPrompts(link, primitives.prompts);
      this.#resources = new MountedResources(link, primitives.resources, primitives.resourceUpdated);
    }
  }

  /** Whether the upstream is reachable now. */
  get up(): boolean {
    return this.#down === undefined;
  }

  /** Resolves once connected and listed; rejects when the first connection fails. */
  start(): Promise<void> {
    this.#connected ??= this.#connect();
    return this.#connected;
  }

  async #connect(): Promise<void> {
    const client = new McpClient(transportOf(this.#upstream), {
      name: 'weft-gateway',
      protocol: this.#options.protocol ?? 'auto',
      timeoutMs: 30_000,
      logLevel: 'debug',
      onLog: (params) => this.#current()?.log(params as Parameters<ExactCallRequest['log']>[0]),
      ...relayQuestions(() => this.#current()),
      onClose: (error) => this.#onClose(client, error),
    });
    await client.connect();
    this.#client = client;
    this.#tools.attach(client);
    this.#prompts?.attach(client);
    this.#resources?.attach(client);
    await Promise.all([this.#tools.sync(), this.#prompts?.sync(), this.#resources?.sync()]);
    this.#down = undefined;
    this.#backoffMs = 100;
    this.#resources?.connected();
    const changes = listChangesOf(client, this.#prompts !== undefined);
    if (client.era === 'modern' && Object.keys(changes).length > 0) {
      this.#listen = new AbortController();
      client.listen(changes, { signal: this.#listen.signal }).catch(() => {});
    }
  }

  /** The most recent call in flight: where logs and a legacy upstream's questions go. */
  #current(): ExactCallRequest | undefined {
    return this.#inFlight.at(-1);
  }

  /**
   * A modern tasks/* request for a task this upstream created for `caller`, forwarded and answered
   * as the upstream answered (errors verbatim); undefined when the task is not this upstream's
   * (or not this caller's: to anyone else it is unknown, as a local task would be).
   */
  forwardTask(
    method: ForwardedTaskMethod,
    params: Record<string, unknown>,
    caller: ForwardedCaller,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> | undefined {
    return forwardTask(this.#link, this.#taskRoutes, method, params, caller, signal);
  }

  #onClose(client: McpClient, error: Error | undefined): void {
    if (this.#client !== client && this.#client !== undefined) return;
    this.#listen?.abort();
    this.#resources?.disconnected();
    if (this.#closed) return;
    this.#down = error?.message ?? 'the connection closed';
    this.#logError(`weft gateway: the upstream ${this.label} is down (${this.#down}); reconnecting`);
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#reconnectTimer) return;
    const delay = this.#backoffMs;
    this.#backoffMs = Math.min(this.#backoffMs * 2, this.#options.maxBackoffMs ?? 5000);
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      this.#connect().catch((error: unknown) => {
        this.#down = (error as Error).message;
        this.#scheduleReconnect();
      });
    }, delay);
    this.#reconnectTimer.unref();
  }

  /** Unmounts: the tools leave the listing and the upstream connection is closed. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#reconnectTimer) clearTimeout(this.#reconnectTimer);
    this.#listen?.abort();
    this.#tools.close();
    this.#prompts?.close();
    this.#resources?.close();
    await this.#client?.close().catch(() => {});
  }
}

/** The list changes a modern upstream's listen stream asks for: those its capabilities offer. */
function listChangesOf(client: McpClient, primitives: boolean): Record<string, true> {
  const offers = (kind: string) =>
    (client.serverCapabilities[kind] as { listChanged?: boolean } | undefined)?.listChanged === true;
  const changes: Record<string, true> = {};
  if (offers('tools')) changes.toolsListChanged = true;
  if (primitives && offers('prompts')) changes.promptsListChanged = true;
  if (primitives && offers('resources')) changes.resourcesListChanged = true;
  return changes;
}
