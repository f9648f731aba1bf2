/**
 * `McpServer`: the public facade. It owns one registry, one engine and one router, and hands
 * transports a way to open connections. Its options are checked when it is built, its tools when
 * they are registered: a server that starts is a server that can answer.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import type { Principal } from './auth/principal.js';
import { stdioPrincipal } from './auth/stdio-principal.js';
import { callPeer, resourceUpdatedNotification, type ServerParts } from './context-views.js';
import { Engine } from './engine/engine.js';
import type { CallerHolding } from './engine/fair-queue.js';
import { MountedUpstream, type MountOptions } from './gateway/mounted-upstream.js';
import type { Upstream } from './gateway/upstream-target.js';
import { handleProcessSignals, shutdownAndExit } from './process-signals.js';
import type { PromptDefinition } from './prompts/prompt-definition.js';
import { PromptRegistry } from './prompts/prompt-registry.js';
import type { SchemaPromptDefinition } from './prompts/prompt-schema.js';
import { notification } from './protocol/json-rpc.js';
import { encodeMessage } from './protocol/message-encoding.js';
import { SKILLS_EXTENSION } from './protocol/skills-extension.js';
import type { ResourceDefinition, ResourceTemplateDefinition } from './resources/resource-definition.js';
import { ResourceRegistry } from './resources/resource-registry.js';
import { type UiResourceDefinition, uiResourceDefinition, uiTargetProblem } from './resources/ui-resource.js';
import { CallerKeys } from './router/caller-keys.js';
import { addCompletionMethods } from './router/completion-methods.js';
import { addDiscoverMethod } from './router/discover-method.js';
import { addLifecycleMethods } from './router/lifecycle-methods.js';
import { type ListChangedKind, ListenStreams } from './router/listen-streams.js';
import type { Middleware } from './router/middleware-chain.js';
import { MrtrRounds } from './router/mrtr-rounds.js';
import { addPromptMethods } from './router/prompt-methods.js';
import { RequestStateSeal } from './router/request-state.js';
import { addResourceMethods } from './router/resource-methods.js';
import { Router } from './router/router.js';
import { requiredScopesOf, type ScopesOfPrimitives } from './router/scope-check.js';
import type { ServerIdentity } from './router/server-identity.js';
import { type MessageSink, type PeerAddress, Session } from './router/session.js';
import { addSkillMethods } from './router/skill-methods.js';
import { addTaskMethods } from './router/task-methods.js';
import { TaskRunner } from './router/task-runner.js';
import { detailedTask } from './router/task-wire.js';
import { addToolMethods } from './router/tool-methods.js';
import { serverCapabilities } from './server-capabilities.js';
import {
  checkServerOptions,
  type ListenOptions,
  type McpServerOptions,
  sharedCountsOf,
} from './server-options.js';
import { SkillCatalog, SkillRegistrationError } from './skills/skill-catalog.js';
import { skillResources } from './skills/skill-resources.js';
import { TagFilter } from './tag-filter.js';
import { MemoryTaskStore } from './tasks/memory-task-store.js';
import { type NetworkFacts, ServerTelemetry } from './telemetry/server-telemetry.js';
import { SchemaCompiler } from './tools/schema-compiler.js';
import type { StandardSchemaV1 } from './tools/standard-schema.js';
import type { DefinedTool, ToolDefinition, ToolSchema } from './tools/tool-definition.js';
import { ToolRegistrationError, ToolRegistry } from './tools/tool-registry.js';
import type { Connection } from './transports/connection.js';
import type { ModernRouting } from './transports/modern-request-checks.js';
import { StdioTransport } from './transports/stdio.js';
import { type StreamableHttpOptions, StreamableHttpTransport } from './transports/streamable-http.js';
import { WebSocketTransport } from './transports/websocket.js';

export type { ListenOptions, McpServerOptions, StdioListenOptions } from './server-options.js';

let registryOf: (server: McpServer) => ToolRegistry;

/** The tools a server registered, for `weft worker`, which runs a server module's blocking tools. */
export function toolsOf(server: McpServer): ToolRegistry {
  return registryOf(server);
}

/** How long shutdown waits for the worker pools to stop before it carries on without them. */
const ENGINE_CLOSE_WAIT_MS = 2_000;

/** How each transport's peers are reached, for telemetry's `network.*` attributes. */
const PIPE: NetworkFacts = { transport: 'pipe' };
const HTTP: NetworkFacts = { transport: 'tcp', protocolName: 'http' };
const WEBSOCKET: NetworkFacts = { transport: 'tcp', protocolName: 'websocket' };

export class McpServer {
  static {
    registryOf = (server) => server.#registry;
  }
  readonly #options: Required<Pick<McpServerOptions, 'shutdownGraceMs' | 'maxMessageBytes'>> &
    McpServerOptions;
  readonly #registry: ToolRegistry;
  readonly #engine: Engine;
  readonly #router: Router;
  readonly #sessions = new Set<Session>();
  readonly #listens: ListenStreams;
  readonly #logError: (message: string) => void;
  #closing: Promise<void> | undefined;
  #stdio: StdioTransport | undefined;
  readonly #resources: ResourceRegistry;
  readonly #prompts: PromptRegistry;
  readonly #httpTransports: StreamableHttpTransport[] = [];
  /** What modern HTTP checks before dispatch: the router's methods, the tools' x-mcp-header arguments. */
  readonly #httpRouting: ModernRouting = {
    knows: (method, era) => this.#router.knows(method, era),
    headerParamsOf: (name) => this.#registry.get(name)?.headerParams,
    requiredScopes: (method, params) => requiredScopesOf(method, params, this.#scopesOfPrimitives),
  };
  /** Where the HTTP door reads the scopes a request's primitive requires. */
  readonly #scopesOfPrimitives: ScopesOfPrimitives = {
    toolScopes: (name) => this.#registry.get(name)?.scopes,
    promptScopes: (name) => this.#prompts.scopesOf(name),
    resourceScopes: (uri) => this.#resources.scopesOf(uri),
    templateScopes: (uriTemplate) => this.#resources.template(uriTemplate)?.scopes,
  };
  readonly #wsTransports: WebSocketTransport[] = [];
  readonly #mounts: MountedUpstream[] = [];
  readonly #addresses: { http?: AddressInfo; ws?: AddressInfo } = {};
  readonly #tasks: TaskRunner;
  /** Extensions set up on this server (Skills), as `capabilities.extensions` advertises them. */
  readonly #extensions: Record<string, object> = {};
  /** Which tagged tools, prompts and resources are exposed (enabledTags, disabledTags, enableTag...). */
  readonly #tags: TagFilter;
  /** OpenTelemetry, when the application registered a provider (and did not turn it off). */
  readonly #telemetry: ServerTelemetry | undefined;

  constructor(options: McpServerOptions) {
    checkServerOptions(options);
    this.#logError = options.logError ?? ((message) => process.stderr.write(`${message}\n`));
    this.#options = { shutdownGraceMs: 5_000, maxMessageBytes: 16 * 1024 * 1024, ...options };
    this.#tags = new TagFilter(options.enabledTags, options.disabledTags);
    const { scopesSupported } = options;
    this.#registry = new ToolRegistry(new SchemaCompiler(), () => this.#listChanged('tools'), this.#tags, {
      fleetConfigured: options.fleet !== undefined,
      ...(scopesSupported === undefined ? {} : { scopesSupported }),
    });
    const maxThreads = options.pool?.maxThreads ?? availableParallelism();
    this.#telemetry = ServerTelemetry.create(options.telemetry ?? true, {
      threadsBusy: () => maxThreads - this.#engine.freeThreads,
      ...(options.fleet ? { fleetQueueDepth: () => this.#engine.fleetQueueDepth() } : {}),
    });
    this.#engine = new Engine({
      maxThreads,
      maxQueue: options.pool?.maxQueue ?? 256,
      graceMs: options.pool?.graceMs ?? 200,
      niceIncrement: options.pool?.niceIncrement ?? 10,
      maxCallsInFlight: options.maxCallsInFlight ?? 10_000,
      ...(options.fleet ? { fleet: options.fleet } : {}),
      fairness: options.fairness !== false,
      ...(options.limits?.perCaller ? { perCaller: options.limits.perCaller } : {}),
      ...sharedCountsOf(options),
      ...(this.#telemetry ? { observer: this.#telemetry.calls } : {}),
      logError: this.#logError,
    });
    const callers = new CallerKeys(options.fairness || {});
    const identity: ServerIdentity = {
      serverInfo: {
        name: options.name,
        version: options.version,
        ...(options.title === undefined ? {} : { title: options.title }),
      },
      ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
      capabilities: () => this.#capabilities(),
    };
    this.#router = new Router({
      logError: this.#logError,
      identity,
      ...(options.cache === undefined ? {} : { cache: options.cache }),
      ...(this.#telemetry ? { observer: this.#telemetry.requests } : {}),
    });
    addLifecycleMethods(this.#router, identity);
    addDiscoverMethod(this.#router, identity);
    this.#resources = new ResourceRegistry(() => this.#listChanged('resources'), this.#tags, scopesSupported);
    this.#prompts = new PromptRegistry(() => this.#listChanged('prompts'), this.#tags, scopesSupported);
    this.#listens = new ListenStreams({
      capabilities: () => this.#capabilities(),
      hasResource: (uri) => this.#resources.has(uri),
      scopesOf: (uri) => this.#resources.scopesOf(uri),
      watch: (uri) => this.#resources.watch(uri),
    });
    this.#listens.addTo(this.#router);
    const parts: ServerParts = {
      router: this.#router,
      tools: this.#registry,
      addTool: (definition) => this.tool(definition as DefinedTool),
      resources: this.#resources,
      prompts: this.#prompts,
      resourceUpdated: (uri) => this.resourceUpdated(uri),
      listOutOfScope: options.listOutOfScope ?? false,
    };
    const rounds = new MrtrRounds(
      new RequestStateSeal({
        ...(options.requestStateKey === undefined ? {} : { key: options.requestStateKey }),
        ...(options.requestStateTtlMs === undefined ? {} : { ttlMs: options.requestStateTtlMs }),
      }),
    );
    const listOutOfScope = options.listOutOfScope ?? false;
    addResourceMethods(this.#router, this.#resources, options.pageSize ?? 100, rounds, listOutOfScope);
    addPromptMethods(this.#router, this.#prompts, options.pageSize ?? 100, rounds, listOutOfScope);
    addCompletionMethods(this.#router, { prompts: this.#prompts, resources: this.#resources });
    const ttlMs = options.tasks?.ttlMs ?? 3_600_000;
    this.#tasks = new TaskRunner({
      store: options.tasks?.store ?? new MemoryTaskStore(),
      engine: this.#engine,
      timeoutMs: options.timeoutMs ?? 0,
      ttlMs: ttlMs === 0 ? null : ttlMs,
      pollIntervalMs: options.tasks?.pollIntervalMs ?? 1_000,
      logError: this.#logError,
      peer: (ctx) => callPeer(parts, ctx),
      toolNamed: (name) => this.#registry.get(name),
      onChange: (record) => {
        this.#telemetry?.taskChanged(record);
        this.#listens.taskChanged(record.taskId, record.principal, detailedTask(record));
      },
      callers,
    });
    addTaskMethods(this.#router, this.#tasks, options.pageSize ?? 100, {
      forward: (method, params, caller, signal) => {
        for (const mounted of this.#mounts) {
          const answer = mounted.forwardTask(method, params, caller, signal);
          if (answer) return answer;
        }
        return undefined;
      },
    });
    addToolMethods(this.#router, {
      registry: this.#registry,
      engine: this.#engine,
      timeoutMs: options.timeoutMs ?? 0,
      maxResultBytes: options.maxResultBytes ?? 16 * 1024 * 1024,
      pageSize: options.pageSize ?? 100,
      isClosing: () => this.#closing !== undefined,
      peer: (ctx) => callPeer(parts, ctx),
      rounds,
      tasks: this.#tasks,
      listOutOfScope,
      callers,
    });
  }

  /**
   * Registers a tool. The handler's argument type is inferred from `inputSchema`. Every mistake in
   * the definition throws here, with a message that says what to fix.
   */
  tool(definition: DefinedTool): this;
  tool<const S extends ToolSchema, const O extends ToolSchema | undefined = undefined>(
    definition: ToolDefinition<S, O>,
  ): this;
  tool(definition: unknown): this {
    const problem = uiTargetProblem(this.#resources, definition);
    if (problem) throw new ToolRegistrationError(problem);
    this.#registry.add(definition as ToolDefinition<never, never>);
    return this;
  }

  /**
   * Publishes an MCP App: HTML served as `text/html;profile=mcp-app` at a `ui://` URI, with its
   * csp, permissions, domain and prefersBorder in `_meta.ui`. Register it before the tools whose
   * `ui.resourceUri` names it.
   */
  uiResource(definition: UiResourceDefinition): this {
    this.#resources.add(uiResourceDefinition(definition));
    return this;
  }

  /**
   * Wraps every later request in `middleware`: a function `(ctx, next)` for every request, or an
   * object of hooks by kind (`onCallTool`, `onList`, `onReadResource`, `onGetPrompt`, `onRequest`,
   * `onNotification`). The first installed is the outermost. Hooks run on the main thread: never
   * block in one. See lib/router/middleware-chain.ts and the built-ins in weft's `middleware`.
   */
  use(middleware: Middleware): this {
    this.#router.use(middleware);
    return this;
  }

  /**
   * Serves a folder of Agent Skills (the Skills extension, SEP-2640): each skill a directory with
   * a SKILL.md, each of its files a `skill://` resource, `skills/list` / `skills/get` with the
   * frontmatter and the manifest of digests, `resources/directory/read`. A skill whose
   * frontmatter lacks name or description, or whose name is not its directory's, throws here.
   */
  skills(directory: string): this {
    if (SKILLS_EXTENSION in this.#extensions) {
      throw new SkillRegistrationError(
        'server.skills: this server already serves a skills folder; call it once',
      );
    }
    const catalog = new SkillCatalog(resolve(directory));
    for (const resource of skillResources(catalog)) this.#resources.add(resource);
    addSkillMethods(this.#router, catalog, this.#options.pageSize ?? 100);
    this.#extensions[SKILLS_EXTENSION] = { directoryRead: true };
    return this;
  }

  removeTool(name: string): boolean {
    return this.#registry.remove(name);
  }

  /** Publishes a resource; mistakes in the definition throw here. Clients hear list_changed. */
  resource(definition: ResourceDefinition): this {
    this.#resources.add(definition);
    return this;
  }

  /** Publishes a resource template (`{var}` URIs), with optional completions for its variables. */
  resourceTemplate(definition: ResourceTemplateDefinition): this {
    this.#resources.addTemplate(definition);
    return this;
  }

  /** Removes a resource (by URI) or a template (by its template text). */
  removeResource(uriOrTemplate: string): boolean {
    return this.#resources.remove(uriOrTemplate);
  }

  /**
   * Publishes a prompt; mistakes in the definition throw here. Its `arguments` may be a list, or a
   * Standard Schema (zod 4...) of string properties, whose output `get` receives.
   */
  prompt<const S extends StandardSchemaV1>(definition: SchemaPromptDefinition<S>): this;
  prompt(definition: PromptDefinition): this;
  prompt(definition: PromptDefinition): this {
    this.#prompts.add(definition);
    return this;
  }

  removePrompt(name: string): boolean {
    return this.#prompts.remove(name);
  }

  /**
   * Hides every tool, prompt and resource tagged `tag`: none is listed, called, got or read, and
   * clients hear list_changed for each kind that had one. Returns false when it was hidden already.
   */
  disableTag(tag: string): boolean {
    return this.#tagChanged(tag, this.#tags.disable(tag));
  }

  /** Undoes `disableTag` (and, under `enabledTags`, lets `tag` through too); list_changed as above. */
  enableTag(tag: string): boolean {
    return this.#tagChanged(tag, this.#tags.enable(tag));
  }

  #tagChanged(tag: string, changed: boolean): boolean {
    if (changed) {
      this.#registry.tagChanged(tag);
      this.#prompts.tagChanged(tag);
      this.#resources.tagChanged(tag);
    }
    return changed;
  }

  /**
   * Tells every client subscribed to `uri` that it changed (`notifications/resources/updated`):
   * legacy sessions that called resources/subscribe, and listen streams that named it.
   */
  resourceUpdated(uri: string): void {
    const message = resourceUpdatedNotification(uri);
    for (const session of this.#sessions) {
      if (!session.closed && session.subscriptions.has(uri)) session.sink.send(message);
    }
    this.#listens.resourceUpdated(uri);
  }

  /**
   * A Streamable HTTP request handler to mount on your own server: `http.createServer(handler)`,
   * Express `app.all('/mcp', handler)` (after `express.json()` or not: a parsed `req.body` is used),
   * Fastify `(req, reply) => { reply.hijack(); handler(Object.assign(req.raw, { body: req.body }), reply.raw) }`
   * (Fastify has already read the body, so it is handed over). Other paths go to `next`, else 404.
   */
  handler(
    options: StreamableHttpOptions = {},
  ): (request: IncomingMessage, response: ServerResponse, next?: (error?: unknown) => void) => void {
    return this.#httpTransport(options).handle;
  }

  /**
   * Mounts another MCP server (a command, a URL, or an McpServer of this process): its tools,
   * prompts, resources and templates are published here exactly as the upstream describes them,
   * under `namespace_` (resources: `namespace+scheme:`) when given, and each call is forwarded with its deadline, cancel, progress and logs (lib/gateway/). Resolves once the
   * upstream is connected and listed; the returned handle unmounts it.
   */
  async mount(upstream: Upstream, options: MountOptions = {}): Promise<MountedUpstream> {
    const mounted = new MountedUpstream(upstream, options, this.#registry, this.#logError, {
      prompts: this.#prompts,
      resources: this.#resources,
      resourceUpdated: (uri) => this.resourceUpdated(uri),
    });
    this.#mounts.push(mounted);
    await mounted.start();
    return mounted;
  }

  /** A Streamable HTTP transport of this server (for `handler` and `listen`), kept for close(). */
  #httpTransport(options: StreamableHttpOptions): StreamableHttpTransport {
    const connect = (sink: MessageSink, id?: string, principal?: Principal, peer?: PeerAddress) =>
      this.#open(sink, id, principal, HTTP, peer);
    const transport = new StreamableHttpTransport(connect, this.#httpRouting, {
      maxBodyBytes: this.#options.maxMessageBytes,
      logError: this.#logError,
      ...options,
    });
    this.#httpTransports.push(transport);
    return transport;
  }

  /**
   * Opens a connection for a transport; `sink` receives every message sent to that peer, and
   * `principal` (who the transport's auth hook vouched for) travels with every message of it.
   */
  connect(sink: MessageSink, sessionId?: string, principal?: Principal, peer?: PeerAddress): Connection {
    return this.#open(sink, sessionId, principal, undefined, peer);
  }

  /** `connect`, knowing which network the transport is on (telemetry's attributes). */
  #open(
    sink: MessageSink,
    sessionId: string | undefined,
    principal: Principal | undefined,
    network: NetworkFacts | undefined,
    peer?: PeerAddress,
  ): Connection {
    const session = new Session(sink, sessionId, principal, peer);
    this.#sessions.add(session);
    this.#telemetry?.sessionOpened(session, network);
    const router = this.#router;
    return {
      session,
      receive: (value, replyTo) => router.receive(session, value, replyTo),
      encode: (message) => encodeMessage(message, this.#logError),
      close: () => {
        if (!session.closed) this.#telemetry?.sessionClosed(session);
        session.close();
        this.#sessions.delete(session);
      },
    };
  }

  async listen(options: ListenOptions): Promise<void> {
    await this.#registry.verifyBlockingModules();
    // A shared task store must be reachable before the first task is answered.
    await this.#tasks.store.ready();
    await this.#engine.ready();
    this.#engine.warmUp(this.#registry.sorted());
    if (options.stdio) {
      // Stdio has no OAuth (the spec says it SHOULD NOT): a fixed principal may stand in for one.
      const principal = stdioPrincipal(options.stdio);
      const stdio = new StdioTransport((sink) => this.#open(sink, undefined, principal, PIPE), {
        maxMessageBytes: this.#options.maxMessageBytes,
      });
      this.#stdio = stdio;
      stdio.ended.then(() => shutdownAndExit(() => this.close(), this.#logError));
    }
    if (options.http) {
      const { port, host, ...rest } = options.http;
      this.#addresses.http = await this.#httpTransport(rest).listen(port, host);
    }
    if (options.ws) {
      const { port, host, ...rest } = options.ws;
      const transport = new WebSocketTransport(
        (sink, id, principal, peer) => this.#open(sink, id, principal, WEBSOCKET, peer),
        {
          maxPayload: this.#options.maxMessageBytes,
          logError: this.#logError,
          ...rest,
        },
      );
      this.#wsTransports.push(transport);
      // The HTTP port itself (not 0): WebSocket upgrades are served by the HTTP server.
      const shared =
        port !== 0 && port === options.http?.port ? this.#httpTransports.at(-1)?.httpServer : undefined;
      if (shared) {
        transport.attach(shared);
        this.#addresses.ws = this.#addresses.http;
      } else {
        this.#addresses.ws = await transport.listen(port, host);
      }
    }
    if (options.handleSignals ?? true) handleProcessSignals(() => this.close(), this.#logError);
  }

  /**
   * Graceful stop: new calls are refused, in-flight ones get `shutdownGraceMs` to finish, the rest
   * are cancelled, and the worker pool is destroyed (no thread outlives the server).
   */
  close(): Promise<void> {
    for (const mounted of this.#mounts.splice(0)) void mounted.close();
    this.#closing ??= this.#close();
    return this.#closing;
  }

  /** Where `listen` bound its network transports (useful with port 0). */
  get addresses(): { http?: AddressInfo; ws?: AddressInfo } {
    return { ...this.#addresses };
  }

  /**
   * Engine counters, for tests and diagnostics. `callers`: each caller key that holds or waits for a
   * slot now (or owes pool time), with its weight, the slots it holds (`running`), its calls
   * waiting (`waiting`) and the pool time its calls held (`heldMs`).
   */
  get stats(): {
    freeThreads: number;
    queued: number;
    threads: number;
    inFlight: number;
    tasks: number;
    callers: CallerHolding[];
  } {
    let inFlight = 0;
    for (const session of this.#sessions) inFlight += session.inFlightCount;
    return {
      freeThreads: this.#engine.freeThreads,
      queued: this.#engine.queued,
      threads: this.#engine.threadCount,
      inFlight,
      tasks: this.#tasks.runningCount,
      callers: this.#engine.callers(),
    };
  }

  async #close(): Promise<void> {
    this.#stdio?.stopReading();
    for (const transport of this.#httpTransports) transport.stopAccepting();
    // Listen streams never finish by themselves: they end first, gracefully (answered complete),
    // so the grace period below is spent on calls only.
    this.#listens.endAll();
    const deadline = Date.now() + this.#options.shutdownGraceMs;
    while (this.stats.inFlight > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    for (const session of this.#sessions) session.cancelAll('shutdown');
    // Tasks are not waited for (they may run for hours): they stop now and end failed, saying why.
    this.#tasks.stopAll();
    // Let the calls just cut off reach their transports (their answers say the server shut down).
    await new Promise((resolve) => setImmediate(resolve));
    await this.#stdio?.flush();
    // A thread stuck in native code (execSync, a sync addon) cannot be terminated until that call
    // returns; shutdown does not wait for it: such threads end with the process.
    let timer: NodeJS.Timeout | undefined;
    const done = await Promise.race([
      this.#engine.close().then(() => true),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), ENGINE_CLOSE_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
    if (!done) {
      this.#logError('weft: some worker threads are stuck in native code; they end with the process');
    }
    for (const session of this.#sessions) session.close();
    this.#sessions.clear();
    // Give stopped tasks a moment to write why they ended, then let the store go.
    const stopping = Date.now() + 1_000;
    while (this.#tasks.runningCount > 0 && Date.now() < stopping) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    this.#tasks.close();
    await this.#tasks.store.close();
    await Promise.all([...this.#httpTransports, ...this.#wsTransports].map((transport) => transport.close()));
  }

  #capabilities(): Record<string, unknown> {
    return serverCapabilities(this.#registry, this.#resources, this.#prompts, this.#extensions);
  }

  /** A list changed: initialized legacy sessions hear it, and the listen streams that asked. */
  #listChanged(kind: ListChangedKind): void {
    const message = notification(`notifications/${kind}/list_changed`);
    for (const session of this.#sessions) {
      if (session.initialized && !session.closed) session.sink.send(message);
    }
    this.#listens.listChanged(kind);
  }
}
