/**
 * `McpServer`: the public facade. It owns one registry, one engine and one router, and hands
 * transports a way to open connections. Its options are checked when it is built, its tools when
 * they are registered: a server that starts is a server that can answer.
 *
 * The facade keeps the public methods; how the parts are wired is in server-assembly.ts, the open
 * sessions in server-sessions.ts, the transports in server-transports.ts, the stop in server-shutdown.ts.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { Principal } from './auth/principal.js';
import type { CallerHolding } from './engine/fair-queue.js';
import type { MountedUpstream, MountOptions } from './gateway/mounted-upstream.js';
import type { Upstream } from './gateway/upstream-target.js';
import { ServerHealth } from './health/server-health.js';
import { HARD_STOP_MARGIN_MS, handleProcessSignals } from './process-signals.js';
import type { PromptDefinition } from './prompts/prompt-definition.js';
import type { SchemaPromptDefinition } from './prompts/prompt-schema.js';
import { SKILLS_EXTENSION } from './protocol/skills-extension.js';
import type { ResourceDefinition, ResourceTemplateDefinition } from './resources/resource-definition.js';
import { type UiResourceDefinition, uiResourceDefinition, uiTargetProblem } from './resources/ui-resource.js';
import type { Middleware } from './router/middleware-chain.js';
import type { MessageSink, PeerAddress } from './router/session.js';
import { addSkillMethods } from './router/skill-methods.js';
import { assembleServer, type ServerCore } from './server-assembly.js';
import { checkServerOptions, type ListenOptions, type McpServerOptions } from './server-options.js';
import { shutDown, shutdownBoundMs } from './server-shutdown.js';
import { ServerTransports } from './server-transports.js';
import { SkillCatalog, SkillRegistrationError } from './skills/skill-catalog.js';
import { skillResources } from './skills/skill-resources.js';
import type { StandardSchemaV1 } from './tools/standard-schema.js';
import type { DefinedTool, ToolDefinition, ToolSchema } from './tools/tool-definition.js';
import { ToolRegistrationError, type ToolRegistry } from './tools/tool-registry.js';
import type { AuthTableSizes } from './transports/bearer-auth.js';
import type { Connection } from './transports/connection.js';
import type { StreamableHttpOptions } from './transports/streamable-http.js';

export type { ListenOptions, McpServerOptions, StdioListenOptions } from './server-options.js';

let registryOf: (server: McpServer) => ToolRegistry;

/** The tools a server registered, for `weft worker`, which runs a server module's blocking tools. */
export function toolsOf(server: McpServer): ToolRegistry {
  return registryOf(server);
}

export class McpServer {
  static {
    registryOf = (server) => server.#core.tools;
  }
  readonly #options: Required<Pick<McpServerOptions, 'shutdownGraceMs' | 'maxMessageBytes'>> &
    McpServerOptions;
  readonly #core: ServerCore;
  readonly #transports: ServerTransports;
  /** Readiness and the probes (lib/health/): starting until listen, draining from drain/close. */
  readonly #health: ServerHealth;
  #closing: Promise<void> | undefined;
  #draining: Promise<void> | undefined;

  constructor(options: McpServerOptions) {
    checkServerOptions(options);
    this.#options = { shutdownGraceMs: 5_000, maxMessageBytes: 16 * 1024 * 1024, ...options };
    this.#core = assembleServer(options, {
      addTool: (definition) => this.tool(definition as DefinedTool),
      resourceUpdated: (uri) => this.resourceUpdated(uri),
      isClosing: () => this.#closing !== undefined,
    });
    const { sessions, router, tools, prompts, resources, logError, engine, tasks } = this.#core;
    this.#health = new ServerHealth({
      engine,
      store: tasks.store,
      fleet: options.fleet !== undefined,
      lostSlotsLivenessMs: options.pool?.lostSlotsLivenessMs ?? 60_000,
      // As engine.warmUp decides: a pool of its own unless every blocking tool runs on the fleet.
      needsThreads: () =>
        options.fleet === undefined ||
        tools.sorted().some((tool) => tool.blocking && engine.placementOf(tool) === 'local'),
    });
    this.#transports = new ServerTransports({
      sessions,
      router,
      tools,
      prompts,
      resources,
      maxMessageBytes: this.#options.maxMessageBytes,
      logError,
      ...(this.#options.trustProxy === undefined ? {} : { trustProxy: this.#options.trustProxy }),
      healthRoutes: (health, path) => this.#health.routes(health, path),
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
    const problem = uiTargetProblem(this.#core.resources, definition);
    if (problem) throw new ToolRegistrationError(problem);
    this.#core.tools.add(definition as ToolDefinition<never, never>);
    return this;
  }

  /**
   * Publishes an MCP App: HTML served as `text/html;profile=mcp-app` at a `ui://` URI, with its
   * csp, permissions, domain and prefersBorder in `_meta.ui`. Register it before the tools whose
   * `ui.resourceUri` names it.
   */
  uiResource(definition: UiResourceDefinition): this {
    this.#core.resources.add(uiResourceDefinition(definition));
    return this;
  }

  /**
   * Wraps every later request in `middleware`: a function `(ctx, next)` for every request, or an
   * object of hooks by kind (`onCallTool`, `onList`, `onReadResource`, `onGetPrompt`, `onRequest`,
   * `onNotification`). The first installed is the outermost. Hooks run on the main thread: never
   * block in one. See lib/router/middleware-chain.ts and the built-ins in weft's `middleware`.
   */
  use(middleware: Middleware): this {
    this.#core.router.use(middleware);
    return this;
  }

  /**
   * Serves a folder of Agent Skills (the Skills extension, SEP-2640): each skill a directory with
   * a SKILL.md, each of its files a `skill://` resource, `skills/list` / `skills/get` with the
   * frontmatter and the manifest of digests, `resources/directory/read`. A skill whose
   * frontmatter lacks name or description, or whose name is not its directory's, throws here.
   */
  skills(directory: string): this {
    if (SKILLS_EXTENSION in this.#core.extensions) {
      throw new SkillRegistrationError(
        'server.skills: this server already serves a skills folder; call it once',
      );
    }
    const catalog = new SkillCatalog(resolve(directory));
    for (const resource of skillResources(catalog)) this.#core.resources.add(resource);
    addSkillMethods(this.#core.router, catalog, this.#options.pageSize ?? 100);
    this.#core.extensions[SKILLS_EXTENSION] = { directoryRead: true };
    return this;
  }

  removeTool(name: string): boolean {
    return this.#core.tools.remove(name);
  }

  /** Publishes a resource; mistakes in the definition throw here. Clients hear list_changed. */
  resource(definition: ResourceDefinition): this {
    this.#core.resources.add(definition);
    return this;
  }

  /** Publishes a resource template (`{var}` URIs), with optional completions for its variables. */
  resourceTemplate(definition: ResourceTemplateDefinition): this {
    this.#core.resources.addTemplate(definition);
    return this;
  }

  /** Removes a resource (by URI) or a template (by its template text). */
  removeResource(uriOrTemplate: string): boolean {
    return this.#core.resources.remove(uriOrTemplate);
  }

  /**
   * Publishes a prompt; mistakes in the definition throw here. Its `arguments` may be a list, or a
   * Standard Schema (zod 4...) of string properties, whose output `get` receives.
   */
  prompt<const S extends StandardSchemaV1>(definition: SchemaPromptDefinition<S>): this;
  prompt(definition: PromptDefinition): this;
  prompt(definition: PromptDefinition): this {
    this.#core.prompts.add(definition);
    return this;
  }

  removePrompt(name: string): boolean {
    return this.#core.prompts.remove(name);
  }

  /**
   * Hides every tool, prompt and resource tagged `tag`: none is listed, called, got or read, and
   * clients hear list_changed for each kind that had one. Returns false when it was hidden already.
   */
  disableTag(tag: string): boolean {
    return this.#tagChanged(tag, this.#core.tags.disable(tag));
  }

  /** Undoes `disableTag` (and, under `enabledTags`, lets `tag` through too); list_changed as above. */
  enableTag(tag: string): boolean {
    return this.#tagChanged(tag, this.#core.tags.enable(tag));
  }

  #tagChanged(tag: string, changed: boolean): boolean {
    if (changed) {
      this.#core.tools.tagChanged(tag);
      this.#core.prompts.tagChanged(tag);
      this.#core.resources.tagChanged(tag);
    }
    return changed;
  }

  /**
   * Tells every client subscribed to `uri` that it changed (`notifications/resources/updated`):
   * legacy sessions that called resources/subscribe, and listen streams that named it.
   */
  resourceUpdated(uri: string): void {
    this.#core.sessions.resourceUpdated(uri);
  }

  /**
   * A Streamable HTTP request handler to mount on your own server: `http.createServer(handler)`,
   * Express `app.all('/mcp', handler)` (after `express.json()` or not: a parsed `req.body` is used),
   * Fastify `(req, reply) => { reply.hijack(); handler(Object.assign(req.raw, { body: req.body }), reply.raw) }`
   * (Fastify has already read the body, so it is handed over). Other paths go to `next`, else 404.
   * The probes are off here unless `health` asks for them; they then say ready from now on.
   */
  handler(
    options: StreamableHttpOptions = {},
  ): (request: IncomingMessage, response: ServerResponse, next?: (error?: unknown) => void) => void {
    const health = options.health ?? false;
    const { handle } = this.#transports.http({ ...options, health });
    if (health) this.#health.ready();
    return handle;
  }

  /**
   * Mounts another MCP server (a command, a URL, or an McpServer of this process): its tools,
   * prompts, resources and templates are published here exactly as the upstream describes them,
   * under `namespace_` (resources: `namespace+scheme:`) when given, and each call is forwarded with its deadline, cancel, progress and logs (lib/gateway/). Resolves once the
   * upstream is connected and listed; the returned handle unmounts it.
   */
  async mount(upstream: Upstream, options: MountOptions = {}): Promise<MountedUpstream> {
    const { tools, logError, prompts, resources, mounts } = this.#core;
    // The gateway (and the client it uses) loads at the first mount, not with every server.
    const { MountedUpstream } = await import('./gateway/mounted-upstream.js');
    const mounted = new MountedUpstream(upstream, options, tools, logError, {
      prompts,
      resources,
      resourceUpdated: (uri) => this.resourceUpdated(uri),
    });
    mounts.push(mounted);
    await mounted.start();
    return mounted;
  }

  /**
   * Opens a connection for a transport; `sink` receives every message sent to that peer, and
   * `principal` (who the transport's auth hook vouched for) travels with every message of it.
   */
  connect(sink: MessageSink, sessionId?: string, principal?: Principal, peer?: PeerAddress): Connection {
    return this.#core.sessions.open(sink, sessionId, principal, undefined, peer);
  }

  async listen(options: ListenOptions): Promise<void> {
    const { tools, tasks, engine, logError } = this.#core;
    const { http } = options;
    // The probes' own port opens first, so an orchestrator sees `starting` rather than nothing.
    if (http) await this.#health.listenOwnPort(http.health, http.path ?? '/mcp', http.host);
    await tools.verifyBlockingModules();
    // A shared task store must be reachable before the first task is answered.
    await tasks.store.ready();
    await engine.ready();
    // The doors open once the pool's threads are up: until then the main thread is busy with them.
    await engine.warmUp(tools.sorted());
    // Past the documented bound of a drain (docs/deploying.md), the process exits regardless.
    const hardStopMs = shutdownBoundMs(this.#options) + HARD_STOP_MARGIN_MS;
    await this.#transports.listen(options, () => this.close(), hardStopMs);
    this.#health.ready();
    if (options.handleSignals ?? true)
      handleProcessSignals(
        () => this.close(),
        logError,
        () => this.drain(),
        hardStopMs,
      );
  }

  /**
   * What SIGTERM does: readiness answers 503 at once, new requests are still served for
   * `drainDelayMs` (the balancer's time to notice), then the listener closes and the server shuts
   * down as `close` does, running tasks getting `drainTimeoutMs` (docs/deploying.md, the timeline).
   */
  drain(): Promise<void> {
    this.#draining ??= (async () => {
      this.#health.drain();
      const delayMs = this.#options.drainDelayMs ?? 0;
      // Without a delay there is no balancer to hand over to: the listener stays open and answers
      // 503 until the end, which tells a lone client more than a refused connection would.
      if (delayMs > 0 && this.#closing === undefined) {
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        this.#transports.stopListening();
      }
      await this.close();
    })();
    return this.#draining;
  }

  /**
   * Graceful stop: new calls are refused, in-flight ones get `shutdownGraceMs` to finish, the rest
   * are cancelled, and the worker pool is destroyed (no thread outlives the server).
   */
  close(): Promise<void> {
    for (const mounted of this.#core.mounts.splice(0)) void mounted.close();
    this.#health.drain();
    this.#closing ??= shutDown({
      ...this.#core,
      transports: this.#transports,
      shutdownGraceMs: this.#options.shutdownGraceMs,
      drainTimeoutMs: this.#options.drainTimeoutMs ?? 0,
    }).finally(() => this.#health.close());
    return this.#closing;
  }

  /** Where `listen` bound its network transports and the probes' own port (useful with port 0). */
  get addresses(): { http?: AddressInfo; ws?: AddressInfo; health?: AddressInfo } {
    const health = this.#health.address;
    return { ...this.#transports.addresses, ...(health ? { health } : {}) };
  }

  /**
   * Engine counters, for tests and diagnostics. `callers`: each caller key that holds or waits for a
   * slot now (or owes pool time), with its weight, the slots it holds (`running`), its calls
   * waiting (`waiting`) and the pool time its calls held (`heldMs`). `tables`: the sizes of the
   * tables that grow with callers (each bounded: docs/security.md).
   */
  get stats(): {
    freeThreads: number;
    /** Slots held by stopped calls still inside native code (docs/failure-semantics.md). */
    lostSlots: number;
    queued: number;
    threads: number;
    inFlight: number;
    tasks: number;
    callers: CallerHolding[];
    tables: {
      callerKeys: number;
      callerCounters: number;
      sessions: number;
      listens: number;
      /** The auth hooks' tables (tokens remembered, refused, being verified), when they report them. */
      auth?: AuthTableSizes;
    };
  } {
    const { engine, sessions, tasks, listens } = this.#core;
    const auth = this.#transports.authTables();
    return {
      freeThreads: engine.freeThreads,
      lostSlots: engine.lostSlots.count,
      queued: engine.queued,
      threads: engine.threadCount,
      inFlight: sessions.inFlight,
      tasks: tasks.runningCount,
      callers: engine.callers(),
      tables: {
        ...engine.callerTables(),
        sessions: sessions.size,
        listens: listens.size,
        ...(auth ? { auth } : {}),
      },
    };
  }
}
