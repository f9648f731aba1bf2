/**
 * How an `McpServer` is put together: one tool registry, one engine, one router with every method
 * room added to it, the resource and prompt registries, the listen streams, the task runner and the
 * sessions, each handed exactly the others it needs. The wiring lives here, apart from the facade's
 * public methods, so that who-talks-to-whom reads top to bottom in one function.
 */

import { availableParallelism } from 'node:os';
import { callPeer, type ServerParts } from './context-views.js';
import { Engine } from './engine/engine.js';
import type { MountedUpstream } from './gateway/mounted-upstream.js';
import { PromptRegistry } from './prompts/prompt-registry.js';
import { ResourceRegistry } from './resources/resource-registry.js';
import { CallerKeys } from './router/caller-keys.js';
import { addCompletionMethods } from './router/completion-methods.js';
import { addDiscoverMethod } from './router/discover-method.js';
import { addLifecycleMethods } from './router/lifecycle-methods.js';
import { ListenStreams } from './router/listen-streams.js';
import { MrtrRounds } from './router/mrtr-rounds.js';
import { addPromptMethods } from './router/prompt-methods.js';
import { RequestStateSeal } from './router/request-state.js';
import { addResourceMethods } from './router/resource-methods.js';
import { Router } from './router/router.js';
import type { ServerIdentity } from './router/server-identity.js';
import { addTaskMethods } from './router/task-methods.js';
import { TaskRunner } from './router/task-runner.js';
import { detailedTask } from './router/task-wire.js';
import { addToolMethods } from './router/tool-methods.js';
import { serverCapabilities } from './server-capabilities.js';
import { type McpServerOptions, sharedCountsOf } from './server-options.js';
import { ServerSessions } from './server-sessions.js';
import { TagFilter } from './tag-filter.js';
import { MemoryTaskStore } from './tasks/memory-task-store.js';
import { ServerTelemetry } from './telemetry/server-telemetry.js';
import { builderModules } from './tools/builder-module.js';
import { SchemaCompiler } from './tools/schema-compiler.js';
import { ToolRegistry } from './tools/tool-registry.js';

/** The parts of one server, as the facade holds them. */
export interface ServerCore {
  logError: (message: string) => void;
  /** Which tagged tools, prompts and resources are exposed (enabledTags, disabledTags, enableTag...). */
  tags: TagFilter;
  tools: ToolRegistry;
  engine: Engine;
  router: Router;
  resources: ResourceRegistry;
  prompts: PromptRegistry;
  listens: ListenStreams;
  tasks: TaskRunner;
  sessions: ServerSessions;
  /** Extensions set up on this server (Skills), as `capabilities.extensions` advertises them. */
  extensions: Record<string, object>;
  /** The upstreams mounted on this server; task methods for their tasks are forwarded to them. */
  mounts: MountedUpstream[];
  /** OpenTelemetry, when the application registered a provider (and did not turn it off). */
  telemetry: ServerTelemetry | undefined;
}

/** What the wiring asks of the facade: its `tool` and `resourceUpdated`, and whether it is closing. */
export interface FacadeHooks {
  /** Registers a tool as `server.tool` does, with its checks (ctx.tools() may add tools). */
  addTool: (definition: object) => void;
  resourceUpdated: (uri: string) => void;
  isClosing: () => boolean;
}

/** Builds every part of a server from its (already checked) options. */
export function assembleServer(options: McpServerOptions, hooks: FacadeHooks): ServerCore {
  const logError = options.logError ?? ((message: string) => process.stderr.write(`${message}\n`));
  const tags = new TagFilter(options.enabledTags, options.disabledTags);
  const extensions: Record<string, object> = {};
  const mounts: MountedUpstream[] = [];
  const pageSize = options.pageSize ?? 100;
  const timeoutMs = options.timeoutMs ?? 0;
  const listOutOfScope = options.listOutOfScope ?? false;
  const { scopesSupported } = options;
  // The registries tell the sessions when a list changed; the sessions are built once the router is.
  const tools = new ToolRegistry(new SchemaCompiler(), () => sessions.listChanged('tools'), tags, {
    fleetConfigured: options.fleet !== undefined,
    builderModules: builderModules(),
    ...(scopesSupported === undefined ? {} : { scopesSupported }),
  });
  const maxThreads = options.pool?.maxThreads ?? availableParallelism();
  const telemetry = ServerTelemetry.create(options.telemetry ?? true, {
    threadsBusy: () => maxThreads - engine.freeThreads,
    slotsLost: () => engine.lostSlots.count,
    ...(options.fleet ? { fleetQueueDepth: () => engine.fleetQueueDepth() } : {}),
  });
  const engine = new Engine({
    maxThreads,
    maxQueue: options.pool?.maxQueue ?? 256,
    graceMs: options.pool?.graceMs ?? 200,
    niceIncrement: options.pool?.niceIncrement ?? 10,
    maxCallsInFlight: options.maxCallsInFlight ?? 10_000,
    ...(options.fleet ? { fleet: options.fleet } : {}),
    fairness: options.fairness !== false,
    ...(options.limits?.perCaller ? { perCaller: options.limits.perCaller } : {}),
    ...sharedCountsOf(options),
    ...(options.bounds?.callerIdleMs === undefined ? {} : { idleCallerMs: options.bounds.callerIdleMs }),
    ...(options.bounds?.maxCallerKeys === undefined ? {} : { maxCallerKeys: options.bounds.maxCallerKeys }),
    ...(telemetry ? { observer: telemetry.calls } : {}),
    logError,
  });
  const callers = new CallerKeys(options.fairness || {});
  const capabilities = () => serverCapabilities(tools, resources, prompts, extensions);
  const identity: ServerIdentity = {
    serverInfo: {
      name: options.name,
      version: options.version,
      ...(options.title === undefined ? {} : { title: options.title }),
    },
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
    capabilities,
  };
  const router = new Router({
    logError,
    identity,
    ...(options.cache === undefined ? {} : { cache: options.cache }),
    ...(telemetry ? { observer: telemetry.requests } : {}),
  });
  addLifecycleMethods(router, identity);
  addDiscoverMethod(router, identity);
  const resources = new ResourceRegistry(() => sessions.listChanged('resources'), tags, scopesSupported);
  const prompts = new PromptRegistry(() => sessions.listChanged('prompts'), tags, scopesSupported);
  const listens = new ListenStreams({
    capabilities,
    hasResource: (uri) => resources.has(uri),
    scopesOf: (uri) => resources.scopesOf(uri),
    watch: (uri) => resources.watch(uri),
    ...(options.bounds?.maxListensPerConnection === undefined
      ? {}
      : { maxPerConnection: options.bounds.maxListensPerConnection }),
    ...(options.bounds?.maxListensPerCaller === undefined
      ? {}
      : { maxPerCaller: options.bounds.maxListensPerCaller }),
    ...(options.bounds?.maxListens === undefined ? {} : { maxTotal: options.bounds.maxListens }),
  });
  listens.addTo(router);
  const sessions = new ServerSessions(router, listens, telemetry, logError);
  const parts: ServerParts = {
    router,
    tools,
    addTool: hooks.addTool,
    resources,
    prompts,
    resourceUpdated: hooks.resourceUpdated,
    listOutOfScope,
  };
  const rounds = new MrtrRounds(
    new RequestStateSeal({
      ...(options.requestStateKey === undefined ? {} : { key: options.requestStateKey }),
      ...(options.requestStateTtlMs === undefined ? {} : { ttlMs: options.requestStateTtlMs }),
    }),
  );
  addResourceMethods(router, resources, pageSize, rounds, listOutOfScope);
  addPromptMethods(router, prompts, pageSize, rounds, listOutOfScope);
  addCompletionMethods(router, { prompts, resources });
  const ttlMs = options.tasks?.ttlMs ?? 3_600_000;
  const tasks = new TaskRunner({
    store: options.tasks?.store ?? new MemoryTaskStore(),
    engine,
    timeoutMs,
    ttlMs: ttlMs === 0 ? null : ttlMs,
    pollIntervalMs: options.tasks?.pollIntervalMs ?? 1_000,
    logError,
    peer: (ctx) => callPeer(parts, ctx),
    toolNamed: (name) => tools.get(name),
    onChange: (record) => {
      telemetry?.taskChanged(record);
      listens.taskChanged(record.taskId, record.principal, detailedTask(record));
    },
    callers,
  });
  addTaskMethods(router, tasks, pageSize, {
    forward: (method, params, caller, signal) => {
      for (const mounted of mounts) {
        const answer = mounted.forwardTask(method, params, caller, signal);
        if (answer) return answer;
      }
      return undefined;
    },
  });
  addToolMethods(router, {
    registry: tools,
    engine,
    timeoutMs,
    maxResultBytes: options.maxResultBytes ?? 16 * 1024 * 1024,
    pageSize,
    isClosing: hooks.isClosing,
    peer: (ctx) => callPeer(parts, ctx),
    rounds,
    tasks,
    listOutOfScope,
    callers,
  });
  return {
    logError,
    tags,
    tools,
    engine,
    router,
    resources,
    prompts,
    listens,
    tasks,
    sessions,
    extensions,
    mounts,
    telemetry,
  };
}
