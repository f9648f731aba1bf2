/**
 * `McpClient`: one connection to one MCP server, in whichever era the server speaks.
 *
 * The client owns what a transport must not know: the era (era-handshake.ts), the modern envelope
 * on every request, the listing cache and `Mcp-Param-*` mirroring (tool-listing.ts), multi-round
 * exchanges answered by the registered handlers (input-answers.ts), tasks (task-follower.ts),
 * progress and log routing; a legacy session the server lost is replaced (link-recovery.ts); what
 * it accepts is client-options.ts. Each public method is one MCP
 * request as the caller means it; the era only changes how it travels.
 */

import { META, TASKS_EXTENSION } from '../protocol/eras.js';
import type { ProgressUpdate, ToolCallResult } from './call-results.js';
import { McpError } from './client-errors.js';
import {
  type CallOptions,
  checkClientOptions,
  type McpClientOptions,
  type ToolCallOptions,
} from './client-options.js';
import type { ClientTransport } from './client-transport.js';
import {
  checkProtocolChoice,
  handshake,
  modernMeta,
  type ProtocolChoice,
  type ServerFacts,
} from './era-handshake.js';
import { answerInputRequests, answerQuestion, capabilitiesFor } from './input-answers.js';
import { LinkRecovery } from './link-recovery.js';
import { RpcPeer } from './rpc-peer.js';
import { followTask } from './task-follower.js';
import {
  assembleListing,
  isExpired,
  type ListedTool,
  paramHeaders,
  ToolHeaderIndex,
  type ToolListing,
} from './tool-listing.js';

export type { CallOptions, McpClientOptions, ToolCallOptions } from './client-options.js';

type Params = Record<string, unknown>;
type Handler = (params: Params) => void;

/** The most rounds one multi-round exchange may take before the client calls it a loop. */
const MAX_ROUNDS = 32;

export class McpClient {
  readonly #options: McpClientOptions;
  readonly #peer: RpcPeer;
  readonly #capabilities: Record<string, unknown>;
  readonly #clientInfo: { name: string; version: string };
  readonly #listeners = new Map<string, Set<Handler>>();
  readonly #progress = new Map<string, (update: ProgressUpdate) => void>();
  #facts: ServerFacts | undefined;
  #listing: ToolListing | undefined;
  #headers = new ToolHeaderIndex();
  #nextProgress = 1;
  readonly #recovery = new LinkRecovery({
    currentSession: () => (this.#peer.transport as { sessionId?: string }).sessionId,
    renewSession: () => this.#renewSession(),
    renewed: () => {
      this.#listing = undefined;
      this.#options.onSessionRenewed?.();
    },
  });

  constructor(transport: ClientTransport, options: McpClientOptions = {}) {
    checkClientOptions(options);
    this.#options = options;
    this.#clientInfo = { name: options.name ?? 'weft-client', version: options.version ?? '0.1.0' };
    this.#capabilities = capabilitiesFor(options);
    if (options.tasks) this.#capabilities.extensions = { [TASKS_EXTENSION]: {} };
    this.#peer = new RpcPeer(transport, {
      request: (method, params) => answerQuestion(this.#options, method, params),
      notification: (method, params) => this.#onNotification(method, params ?? {}),
      closed: (error) => this.#options.onClose?.(error),
    });
  }

  /** Opens the transport and learns the server's era, version and capabilities. */
  async connect(): Promise<this> {
    await this.#peer.start();
    this.#facts = await handshake(this.#peer, {
      choice: checkProtocolChoice(this.#options.protocol),
      clientInfo: this.#clientInfo,
      capabilities: this.#capabilities,
      timeoutMs: this.#timeout(undefined),
    });
    if (this.#facts.era === 'legacy' && this.#options.logLevel && this.#facts.capabilities.logging) {
      await this.request('logging/setLevel', { level: this.#options.logLevel });
    }
    return this;
  }

  get era(): 'legacy' | 'modern' {
    return this.#server().era;
  }
  get protocolVersion(): string {
    return this.#server().protocolVersion;
  }
  get serverCapabilities(): Record<string, unknown> {
    return this.#server().capabilities;
  }
  get serverInfo(): Record<string, unknown> | undefined {
    return this.#server().serverInfo;
  }
  get instructions(): string | undefined {
    return this.#server().instructions;
  }
  get closed(): boolean {
    return this.#peer.closed;
  }
  /** The transport this client drives. */
  get transport(): ClientTransport {
    return this.#peer.transport;
  }

  /** Hears a notification method (list changes, resource updates, ...); returns the unsubscribe. */
  on(method: string, handler: Handler): () => void {
    const set = this.#listeners.get(method) ?? new Set<Handler>();
    this.#listeners.set(method, set);
    set.add(handler);
    return () => set.delete(handler);
  }

  /**
   * One request with the era's envelope added; rounds of `input_required` are answered with the
   * registered handlers and retried (modern), so the caller sees only the final result.
   */
  async request(
    method: string,
    params: Params = {},
    options: CallOptions & { headers?: Record<string, string> } = {},
  ) {
    const facts = this.#server();
    const meta: Params = { ...(params._meta as Params | undefined), ...options.meta };
    let progressKey: string | undefined;
    if (options.onprogress) {
      const token = `weft-progress-${this.#nextProgress++}`;
      meta.progressToken = token;
      progressKey = JSON.stringify(token);
      this.#progress.set(progressKey, options.onprogress);
    }
    try {
      if (facts.era === 'legacy') {
        const sent = Object.keys(meta).length > 0 ? { ...params, _meta: meta } : params;
        return (await this.#recovery.run(method, () =>
          this.#peer.request(method, sent, this.#peerOptions(options)),
        )) as Params;
      }
      if (this.#options.logLevel && facts.capabilities.logging) meta[META.logLevel] = this.#options.logLevel;
      const declared = options.capabilities
        ? { clientInfo: this.clientInfo, capabilities: options.capabilities }
        : this;
      const base = { ...params, _meta: modernMeta(facts.protocolVersion, declared, meta) };
      let round: Params = base;
      for (let rounds = 0; rounds < MAX_ROUNDS; rounds++) {
        const result = (await this.#peer.request(method, round, this.#peerOptions(options))) as Params;
        if (result?.resultType !== 'input_required' || options.rounds === 'return') return result;
        const inputResponses = await answerInputRequests(
          options.input ?? this.#options,
          result.inputRequests,
        );
        round = { ...base, inputResponses };
        if (result.requestState !== undefined) round.requestState = result.requestState;
      }
      throw new McpError(
        -32603,
        `${method} asked for input ${MAX_ROUNDS} times in a row; the client stopped`,
      );
    } finally {
      if (progressKey !== undefined) this.#progress.delete(progressKey);
    }
  }

  /** A notification with the era's envelope. */
  notify(method: string, params: Params = {}): Promise<void> {
    const facts = this.#server();
    if (facts.era === 'legacy') return this.#peer.notify(method, params);
    return this.#peer.notify(method, {
      ...params,
      _meta: modernMeta(facts.protocolVersion, this, params._meta as Params),
    });
  }

  /** Every tool, all pages, from the cache while its `ttlMs` lasts (`refresh` forces a new listing). */
  async listTools(options: CallOptions & { refresh?: boolean } = {}): Promise<ListedTool[]> {
    return (await this.toolListing(options)).tools;
  }

  /** The whole listing with its cache facts and the tools dropped for invalid annotations. */
  async toolListing(options: CallOptions & { refresh?: boolean } = {}): Promise<ToolListing> {
    if (!options.refresh && this.#listing && !isExpired(this.#listing)) return this.#listing;
    const { listing, headers } = await assembleListing((page) =>
      this.#everyPage('tools/list', options, page),
    );
    this.#headers = headers;
    this.#listing = listing;
    return listing;
  }

  /**
   * Calls a tool. Over modern HTTP its `x-mcp-header` arguments are mirrored from the listing; if
   * the server answers -32020 while that listing has expired, the client lists again and retries
   * once with what the fresh listing says (whatever its TTL), for this call only.
   */
  async callTool(name: string, args: Params = {}, options: ToolCallOptions = {}): Promise<ToolCallResult> {
    const listing = this.#listing;
    const expired = isExpired(listing);
    const attempt = (index: ToolHeaderIndex) => {
      const params = index.paramsOf(name);
      const headers = params && this.era === 'modern' ? paramHeaders(params, args) : undefined;
      const sent: Params = { name, arguments: args };
      if (options.task && this.era === 'legacy')
        sent.task = options.task === true ? {} : { ttl: options.task.ttlMs };
      return this.request('tools/call', sent, { ...options, headers });
    };
    let result: Params;
    try {
      result = await attempt(this.#headers);
    } catch (error) {
      if (!(error instanceof McpError) || error.code !== -32020 || !expired || this.era !== 'modern')
        throw error;
      await this.toolListing({ refresh: true, signal: options.signal });
      result = await attempt(this.#headers);
    }
    return (await followTask(this.#taskPort(), result, options)) as ToolCallResult;
  }

  /**
   * The `Mcp-Param-*` headers a call of `name` with `args` carries by the latest listing (modern
   * era; undefined when the listing names no such tool). A gateway forwarding a call uses it.
   */
  paramHeadersOf(name: string, args: Params | undefined): Record<string, string> | undefined {
    const params = this.#headers.paramsOf(name);
    return params && this.era === 'modern' ? paramHeaders(params, args) : undefined;
  }

  listPrompts(options: CallOptions = {}): Promise<Params[]> {
    return this.#collect('prompts/list', 'prompts', options);
  }
  getPrompt(name: string, args: Record<string, string> = {}, options: CallOptions = {}): Promise<Params> {
    return this.request('prompts/get', { name, arguments: args }, options);
  }
  listResources(options: CallOptions = {}): Promise<Params[]> {
    return this.#collect('resources/list', 'resources', options);
  }
  listResourceTemplates(options: CallOptions = {}): Promise<Params[]> {
    return this.#collect('resources/templates/list', 'resourceTemplates', options);
  }
  readResource(uri: string, options: CallOptions = {}): Promise<Params> {
    return this.request('resources/read', { uri }, options);
  }
  /** `completion/complete`: ref is `{type: 'ref/prompt', name}` or `{type: 'ref/resource', uri}`. */
  complete(
    ref: Params,
    argument: { name: string; value: string },
    context?: Params,
    options: CallOptions = {},
  ) {
    const params: Params = { ref, argument };
    if (context !== undefined) params.context = context;
    return this.request('completion/complete', params, options);
  }
  /** Legacy era: `resources/subscribe`; updates arrive as `notifications/resources/updated`. */
  subscribeResource(uri: string, options: CallOptions = {}): Promise<Params> {
    return this.request('resources/subscribe', { uri }, options);
  }

  /**
   * Modern era: opens a `subscriptions/listen` stream and resolves with what the server honours
   * (its acknowledgement). Notifications then reach `on(...)` handlers until `signal` aborts.
   */
  listen(notifications: Params, options: { signal: AbortSignal }): Promise<Params> {
    if (this.era !== 'modern') {
      return Promise.reject(
        new TypeError('subscriptions/listen is a 2026-07-28 method; this server speaks the legacy era'),
      );
    }
    return new Promise<Params>((resolve, reject) => {
      const off = this.on('notifications/subscriptions/acknowledged', (params) => {
        off();
        resolve(params);
      });
      this.request('subscriptions/listen', { notifications }, { signal: options.signal, timeoutMs: 0 }).then(
        () => off(),
        (error) => {
          off();
          reject(error);
        },
      );
    });
  }

  getTask(taskId: string, options: CallOptions = {}): Promise<Params> {
    return this.request('tasks/get', { taskId }, options);
  }
  cancelTask(taskId: string, options: CallOptions = {}): Promise<Params> {
    return this.request('tasks/cancel', { taskId }, options);
  }
  updateTask(taskId: string, inputResponses: Params, options: CallOptions = {}): Promise<Params> {
    return this.request('tasks/update', { taskId, inputResponses }, options);
  }

  close(): Promise<void> {
    return this.#peer.close();
  }

  /** Legacy era: a new session in place of one the server lost, at the version already negotiated. */
  async #renewSession(): Promise<void> {
    this.#facts = await handshake(this.#peer, {
      choice: this.#server().protocolVersion as ProtocolChoice,
      clientInfo: this.#clientInfo,
      capabilities: this.#capabilities,
      timeoutMs: this.#timeout(undefined),
    });
    if (this.#options.logLevel && this.#facts.capabilities.logging) {
      const timeoutMs = this.#timeout(undefined);
      await this.#peer.request('logging/setLevel', { level: this.#options.logLevel }, { timeoutMs });
    }
  }

  #taskPort() {
    return {
      era: this.era,
      pollIntervalMs: this.#options.pollIntervalMs ?? 500,
      request: (method: string, params: Params, options: CallOptions) =>
        this.request(method, params, options),
      answer: (inputRequests: unknown) => answerInputRequests(this.#options, inputRequests),
    };
  }

  async #everyPage(method: string, options: CallOptions, page: (result: Params) => void): Promise<void> {
    let cursor: string | undefined;
    for (let pages = 0; pages < 10_000; pages++) {
      const result = await this.request(method, cursor === undefined ? {} : { cursor }, options);
      page(result);
      cursor = typeof result.nextCursor === 'string' ? result.nextCursor : undefined;
      if (cursor === undefined) return;
    }
  }

  async #collect(method: string, key: string, options: CallOptions): Promise<Params[]> {
    const items: Params[] = [];
    await this.#everyPage(method, options, (result) => items.push(...((result[key] as Params[]) ?? [])));
    return items;
  }

  #onNotification(method: string, params: Params): void {
    if (method === 'notifications/progress') {
      this.#progress.get(JSON.stringify(params.progressToken))?.(params as unknown as ProgressUpdate);
    } else if (method === 'notifications/message') {
      this.#options.onLog?.(params);
    } else if (method === 'notifications/tools/list_changed') {
      this.#listing = undefined;
    }
    for (const handler of this.#listeners.get(method) ?? []) handler(params);
  }

  #peerOptions(options: CallOptions & { headers?: Record<string, string> }) {
    return { signal: options.signal, timeoutMs: this.#timeout(options.timeoutMs), headers: options.headers };
  }

  #timeout(timeoutMs: number | undefined): number {
    return timeoutMs ?? this.#options.timeoutMs ?? 60_000;
  }

  #server(): ServerFacts {
    if (!this.#facts) throw new TypeError('McpClient: call connect() first');
    return this.#facts;
  }

  /** For modernMeta: what every modern request declares. */
  get clientInfo() {
    return this.#clientInfo;
  }
  get capabilities() {
    return this.#capabilities;
  }
}
