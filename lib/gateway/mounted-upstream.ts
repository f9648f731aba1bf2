/**
 * One upstream server mounted into a weft server: the connection to it, kept up, and the pieces
 * that publish what it offers on that connection.
 *
 * - This module owns the connection: connect (era probed or chosen), the modern upstream's
 *   `subscriptions/listen` stream for the list changes it offers, and the link's loss. The link is
 *   lost when the connection closes (a stdio upstream exits, a WebSocket drops), when a request
 *   meets a broken wire (the upstream unreachable, an answer stream cut: `LinkError`), when the
 *   modern listen stream ends or the legacy standalone GET stream ends. Then weft closes the old
 *   connection, reconnects with backoff (100 ms doubling to `maxBackoffMs`, 5 s by default) and
 *   re-reads every listing, dropping what the upstream no longer has (which tells weft's clients
 *   list_changed). A legacy session the upstream lost (404) is renewed by the client itself
 *   (client/link-recovery.ts) and the listings re-read the same way. While the link is down, what
 *   was published stays listed, so names are stable, and calls answer -32603 naming the mount.
 * - Names: clients' errors name the mount (label or namespace), the log its target with secrets
 *   masked (mount-naming.ts).
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
import { ConnectionClosedError, LinkError, McpError, SessionLostError } from '../client/client-errors.js';
import { McpClient } from '../client/mcp-client.js';
import type { ForwardedCaller } from '../router/task-methods.js';
import type { ExactCallRequest } from '../tools/exact-tool.js';
import type { ToolRegistry } from '../tools/tool-registry.js';
import { forwardToolCall } from './forward-tool-call.js';
import { type ForwardedTaskMethod, forwardTask } from './forwarded-tasks.js';
import { MountNaming } from './mount-naming.js';
import { checkMountOptions, type MountOptions, type MountPrimitives } from './mount-options.js';
import { MountedPrompts } from './mounted-prompts.js';
import { MountedResources } from './mounted-resources.js';
import { MountedTools } from './mounted-tools.js';
import { relayQuestions } from './question-relay.js';
import type { UpstreamLink } from './upstream-link.js';
import { transportOf, type Upstream } from './upstream-target.js';
import { UpstreamTaskRoutes } from './upstream-task-routes.js';

export type { MountOptions, MountPrimitives } from './mount-options.js';

/** Errors that say the wire itself failed (not the upstream's answer, not a slow upstream). */
const isLinkFailure = (error: unknown) =>
  error instanceof LinkError || error instanceof SessionLostError || error instanceof ConnectionClosedError;

export class MountedUpstream {
  /** How clients' errors name this mount. */
  readonly label: string;
  readonly #upstream: Upstream;
  readonly #options: MountOptions;
  readonly #naming: MountNaming;
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
    this.#naming = new MountNaming(upstream, options.label ?? options.namespace);
    this.#logError = (message) => logError(this.#naming.redact(message));
    this.label = this.#naming.publicName;
    const link: UpstreamLink = {
      name: this.#naming.publicName,
      target: this.#naming.target,
      namespace: options.namespace,
      client: () => this.#client,
      down: () => this.#down,
      logError: this.#logError,
      lost: (error) => {
        if (this.#client && isLinkFailure(error)) this.#lostLink(this.#client, error);
      },
    };
    this.#link = link;
    const seat = { routes: this.#taskRoutes, inFlight: this.#inFlight };
    this.#tools = new MountedTools(link, registry, options.transform, (upstreamName, request) =>
      forwardToolCall(link, seat, upstreamName, request),
    );
    if (primitives) {
      this.#prompts = new MountedPrompts(link, primitives.prompts);
      this.#resources = new MountedResources(
        link,
        primitives.resources,
        primitives.resourceUpdated,
        options.maxWatchedUris,
      );
    }
  }

  /** Whether the upstream is reachable now. */
  get up(): boolean {
    return this.#down === undefined;
  }

  /** Upstream resource URIs watched now for local subscribers (at most `maxWatchedUris`). */
  get watchedUris(): number {
    return this.#resources?.watchedUris ?? 0;
  }

  /** Resolves once connected and listed; rejects when the first connection fails. */
  start(): Promise<void> {
    this.#connected ??= this.#connect();
    return this.#connected;
  }

  async #connect(): Promise<void> {
    let client: McpClient | undefined;
    const transport = transportOf(this.#upstream, {
      onServerStreamEnd: (error) => {
        if (client)
          this.#lostLink(client, error ?? new LinkError('the upstream ended its standalone stream'));
      },
    });
    client = new McpClient(transport, {
      name: 'weft-gateway',
      protocol: this.#options.protocol ?? 'auto',
      timeoutMs: 30_000,
      logLevel: 'debug',
      onLog: (params) => this.#current()?.log(params as Parameters<ExactCallRequest['log']>[0]),
      ...relayQuestions(() => this.#current()),
      onClose: (error) => {
        if (client) this.#lostLink(client, error ?? new ConnectionClosedError('the connection closed'));
      },
      onSessionRenewed: () => void this.#relist(),
    });
    try {
      await client.connect();
    } catch (error) {
      await client.close().catch(() => {});
      throw error;
    }
    this.#client = client;
    this.#tools.attach(client);
    this.#prompts?.attach(client);
    this.#resources?.attach(client);
    await this.#relist();
    if (this.#client !== client) return; // lost again while listing
    this.#down = undefined;
    this.#backoffMs = 100;
    const changes = listChangesOf(client, this.#prompts !== undefined);
    if (client.era === 'modern' && Object.keys(changes).length > 0) this.#openListen(client, changes);
  }

  /** Re-reads every listing (dropping what the upstream no longer has) and renews subscriptions. */
  async #relist(): Promise<void> {
    await Promise.all([this.#tools.sync(), this.#prompts?.sync(), this.#resources?.sync()]);
    this.#resources?.connected();
  }

  /**
   * The modern upstream's listen stream for list changes. It lives as long as the link: its end
   * (the upstream answered it, or its stream broke) means the upstream went away.
   */
  #openListen(client: McpClient, changes: Record<string, true>): void {
    const listen = new AbortController();
    this.#listen = listen;
    const ended = (error: unknown) => {
      if (listen.signal.aborted) return;
      if (error instanceof McpError) {
        this.#logError(
          `weft gateway: ${this.#naming.target} refused subscriptions/listen (${error.message}); its list changes are read on reconnection only`,
        );
        return;
      }
      this.#lostLink(client, error ?? new LinkError('the upstream ended its listen stream'));
    };
    client
      .request('subscriptions/listen', { notifications: changes }, { signal: listen.signal, timeoutMs: 0 })
      .then(() => ended(undefined), ended);
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

  /**
   * The link over `client` is lost (`error` says how): once per connection, the connection is
   * closed and a new one scheduled. A client that is not the current one is already replaced.
   */
  #lostLink(client: McpClient, error: unknown): void {
    if (this.#closed || client !== this.#client || this.#down !== undefined) return;
    const why = error instanceof Error ? error.message : String(error);
    this.#down = why;
    this.#listen?.abort();
    this.#resources?.disconnected();
    this.#logError(
      `weft gateway: lost the link to ${this.#naming.target} (${this.label}): ${why}; reconnecting`,
    );
    void client.close().catch(() => {});
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
