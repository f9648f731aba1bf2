/**
 * One upstream server mounted into a weft server: its tools published as exact tools
 * (tools/exact-tool.ts), kept in step with the upstream, and each call forwarded with its deadline,
 * cancel, progress and logs.
 *
 * - Listing: the upstream's tools under `namespace_` (when given), re-read whenever the upstream
 *   says its list changed (legacy notification, or a modern `subscriptions/listen` stream) and after
 *   every reconnection; weft's own registry then tells weft's clients (list_changed).
 * - Eras are bridged by weft/client on the upstream side and weft's router on the client side. An
 *   upstream's question reaches the client in the client's era: a legacy client is asked live
 *   (server-to-client request); a modern client of a modern upstream gets the upstream's
 *   `input_required` as it is, and its retry carries the answers and the upstream's own sealed
 *   requestState back. A legacy upstream asking a modern client cannot be answered (the upstream
 *   holds the request open, while a modern client answers on a later request, perhaps on another
 *   replica): the question is refused, which the upstream reports as it sees fit.
 * - Prompts, resources and templates: mounted-prompts.ts and mounted-resources.ts, on the same
 *   connection and listen stream (list changes), in step with it.
 * - Each call declares upstream the capabilities of the gateway's caller, not the gateway's own,
 *   so the upstream asks only what that caller can answer, and refuses (-32021) what it cannot.
 * - Tasks are forwarded, not re-run: a modern caller that declares the tasks extension gets the
 *   upstream's own task (its id, status, ttlMs, pollIntervalMs as they are), and its tasks/get,
 *   tasks/update and tasks/cancel go to this upstream (forwardTask; UpstreamTaskRoutes remembers
 *   whose task it is). A legacy caller's task on a modern upstream is bridged (legacy-task-bridge.ts:
 *   a modern task upstream, shown the legacy way); on a legacy upstream it is forwarded as it is.
 * - Death: calls answer -32603 naming the upstream; weft reconnects with backoff (100 ms doubling
 *   to 5 s) and re-reads the listing; the tools stay listed meanwhile, so names are stable.
 * - Logs and the legacy upstream's questions carry no request id: they go to the most recent call
 *   in flight on this upstream (exact with one call at a time; a documented limit beyond).
 */
import { ConnectionClosedError, McpError, RequestTimeoutError } from '../client/client-errors.js';
import type { InputHandlers } from '../client/input-answers.js';
import { McpClient } from '../client/mcp-client.js';
import type { PromptRegistry } from '../prompts/prompt-registry.js';
import { TASKS_EXTENSION } from '../protocol/eras.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import type { ResourceRegistry } from '../resources/resource-registry.js';
import type { ForwardedCaller } from '../router/task-methods.js';
import type { ExactAnswer, ExactCallRequest } from '../tools/exact-tool.js';
import type { ToolDescriptor } from '../tools/registered-tool.js';
import type { ToolRegistry } from '../tools/tool-registry.js';
import { LegacyTaskBridge, legacyTaskOf } from './legacy-task-bridge.js';
import { MountedPrompts } from './mounted-prompts.js';
import { MountedResources } from './mounted-resources.js';
import {
  checkMountTransforms,
  type MountTransforms,
  publishedName,
  publishMountedTool,
} from './mounted-transform.js';
import type { UpstreamLink } from './upstream-link.js';
import { describeUpstream, transportOf, type Upstream } from './upstream-target.js';
import { type TaskOwner, UpstreamTaskRoutes } from './upstream-task-routes.js';

/** Where a mount publishes an upstream's prompts and resources, and tells of resource updates. */
export interface MountPrimitives {
  prompts: PromptRegistry;
  resources: ResourceRegistry;
  resourceUpdated: (uri: string) => void;
}

export interface MountOptions {
  /**
   * Prefix of the published names: `namespace_tool`, `namespace_prompt`, and resource URIs and
   * templates as `namespace+scheme:...` (resource-uris.ts). Absent: the upstream's names as they are.
   */
  namespace?: string;
  /** Which era to speak to the upstream (default: probe). */
  protocol?: 'auto' | 'modern' | 'legacy';
  /** Longest wait between reconnection attempts (ms, default 5000). */
  maxBackoffMs?: number;
  /**
   * Per upstream tool name: its published face changed, as `transformTool` changes a local tool's
   * (name, title, description, tags, args renamed / described / defaulted / hidden, a custom
   * handler with `forward`). See mounted-transform.ts.
   */
  transform?: MountTransforms;
}

/** What an upstream's question needs of the client it goes to. */
type Asker = Pick<ExactCallRequest, 'era' | 'ask' | 'signal'>;

/** The caller's capabilities with the tasks extension (the gateway follows a bridged task itself). */
function withTasks(capabilities: Record<string, unknown>): Record<string, unknown> {
  const extensions = (capabilities.extensions ?? {}) as Record<string, unknown>;
  return { ...capabilities, extensions: { ...extensions, [TASKS_EXTENSION]: {} } };
}

const MOUNT_OPTION_KEYS = new Set(['namespace', 'protocol', 'maxBackoffMs', 'transform']);
const NAMESPACE = /^[A-Za-z0-9_.-]{1,64}$/;

export class MountedUpstream {
  readonly label: string;
  readonly #upstream: Upstream;
  readonly #options: MountOptions;
  readonly #registry: ToolRegistry;
  readonly #logError: (message: string) => void;
  /** published name -> [upstream name, descriptor JSON] */
  readonly #published = new Map<string, { upstreamName: string; json: string }>();
  readonly #inFlight: ExactCallRequest[] = [];
  /** The tasks this upstream created for the gateway's modern callers, and whose each is. */
  readonly #taskRoutes = new UpstreamTaskRoutes();
  #client: McpClient | undefined;
  #down: string | undefined = 'not connected yet';
  #closed = false;
  #backoffMs = 100;
  #listen: AbortController | undefined;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #connected: Promise<void> | undefined;
  readonly #prompts: MountedPrompts | undefined;
  readonly #resources: MountedResources | undefined;

  constructor(
    upstream: Upstream,
    options: MountOptions,
    registry: ToolRegistry,
    logError: (m: string) => void,
    primitives?: MountPrimitives,
  ) {
    for (const key of Object.keys(options)) {
      if (!MOUNT_OPTION_KEYS.has(key)) {
        throw new TypeError(
          `server.mount: unknown option "${key}"; known: ${[...MOUNT_OPTION_KEYS].join(', ')}`,
        );
      }
    }
    if (options.namespace !== undefined && !NAMESPACE.test(options.namespace)) {
      throw new TypeError(
        `server.mount: namespace ${JSON.stringify(options.namespace)} must be 1 to 64 characters of A-Z, a-z, 0-9, "_", "-" or "."`,
      );
    }
    checkMountTransforms(options.transform);
    transportOf(upstream); // refuses an upstream of the wrong shape now, not at the first connection
    this.#upstream = upstream;
    this.#options = options;
    this.#registry = registry;
    this.#logError = logError;
    this.label = describeUpstream(upstream);
    const link: UpstreamLink = {
      label: this.label,
      namespace: options.namespace,
      client: () => this.#client,
      down: () => this.#down,
      logError,
    };
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
      ...this.#questionHandlers(() => this.#current()),
      onClose: (error) => this.#onClose(client, error),
    });
    await client.connect();
    this.#client = client;
    client.on('notifications/tools/list_changed', () => void this.#sync());
    this.#prompts?.attach(client);
    this.#resources?.attach(client);
    await Promise.all([this.#sync(), this.#prompts?.sync(), this.#resources?.sync()]);
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

  /** Handlers that put a question to the client of the call in `target()`, in that client's era. */
  #questionHandlers(target: () => Asker | undefined): InputHandlers {
    const ask = async (method: string, params: Record<string, unknown>) => {
      const call = target();
      if (call?.era !== 'legacy') {
        throw new McpError(
          -32603,
          call
            ? `the gateway's client speaks 2026-07-28 and cannot be asked ${method} in the middle of a call`
            : `no call of the gateway is waiting for ${method}`,
        );
      }
      return (await call.ask(method, params, call.signal)) as Record<string, unknown>;
    };
    return {
      onElicitation: (params) => ask('elicitation/create', params) as never,
      onSampling: (params) => ask('sampling/createMessage', params),
      roots: async () => ((await ask('roots/list', {})) as { roots: { uri: string }[] }).roots,
    };
  }

  async #sync(): Promise<void> {
    const client = this.#client;
    if (!client) return;
    const tools = await client.listTools({ refresh: true }).catch((error: unknown) => {
      this.#logError(`weft gateway: could not list the tools of ${this.label}: ${(error as Error).message}`);
      return undefined;
    });
    if (!tools) return;
    const prefix = this.#options.namespace === undefined ? '' : `${this.#options.namespace}_`;
    const seen = new Set<string>();
    for (const tool of tools) {
      const transform = this.#options.transform?.[tool.name];
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
          (request) => this.#forward(tool.name, request),
          transform,
        );
        this.#published.set(name, { upstreamName: tool.name, json });
      } catch (error) {
        this.#logError(`weft gateway: ${(error as Error).message}`);
      }
    }
    for (const name of [...this.#published.keys()]) {
      if (seen.has(name)) continue;
      this.#published.delete(name);
      this.#registry.remove(name);
    }
  }

  async #forward(upstreamName: string, request: ExactCallRequest): Promise<ExactAnswer> {
    const client = this.#client;
    if (!client || this.#down !== undefined) {
      return {
        kind: 'error',
        code: -32603,
        message: `the upstream ${this.label} is down (${this.#down}); weft is reconnecting`,
      };
    }
    const {
      _meta,
      name: _name,
      ...rest
    } = request.params as Record<string, unknown> & { _meta?: { progressToken?: unknown } };
    const wantsProgress = _meta?.progressToken !== undefined;
    const task = rest.task;
    // A legacy caller's task on a modern upstream: asked for the modern way, shown the legacy way.
    const bridged =
      request.era === 'legacy' && client.era === 'modern' && typeof task === 'object' && task !== null;
    if (bridged) delete rest.task;
    const capabilities = bridged ? withTasks(request.clientCapabilities) : request.clientCapabilities;
    const owner: TaskOwner = { principal: request.principal, session: request.session };
    const passRounds = request.era === 'modern' && client.era === 'modern';
    // The caller's capabilities, not the gateway's: the upstream then asks only what the caller can
    // answer, and creates a task only for a caller that declared the tasks extension (modern-modern).
    this.#inFlight.push(request);
    try {
      const result = await client.request(
        'tools/call',
        { ...rest, name: upstreamName },
        {
          signal: request.signal,
          timeoutMs: request.budgetMs,
          capabilities,
          rounds: passRounds ? 'return' : 'answer',
          input: this.#questionHandlers(() => request),
          onprogress: wantsProgress
            ? ({ progressToken: _token, ...progress }) => request.progress(progress)
            : undefined,
        },
      );
      if (result.resultType === 'task' && typeof result.taskId === 'string') {
        if (bridged) {
          this.#taskRoutes.add(result.taskId, owner, 'bridged', result.ttlMs);
          return { kind: 'result', result: { task: legacyTaskOf(result) } };
        }
        if (passRounds) {
          const { resultType: _resultType, _meta: _upstreamMeta, ...created } = result;
          this.#taskRoutes.add(result.taskId, { principal: request.principal }, 'modern', result.ttlMs);
          return { kind: 'task', task: created };
        }
      }
      const legacyCreated = result.task as { taskId?: unknown; ttl?: unknown } | undefined;
      if (request.era === 'legacy' && client.era === 'legacy' && typeof legacyCreated?.taskId === 'string') {
        this.#taskRoutes.add(legacyCreated.taskId, owner, 'legacy', legacyCreated.ttl);
      }
      if (result.resultType === 'input_required') {
        return {
          kind: 'input-required',
          inputRequests: (result.inputRequests as Record<string, unknown>) ?? {},
          requestState: result.requestState as string | undefined,
        };
      }
      return { kind: 'result', result };
    } catch (error) {
      if (request.signal.aborted) return { kind: 'cancelled' };
      if (error instanceof McpError)
        return { kind: 'error', code: error.code, message: error.message, data: error.data };
      if (error instanceof RequestTimeoutError) {
        return {
          kind: 'result',
          result: {
            content: [
              {
                type: 'text',
                text: `Tool "${upstreamName}" of ${this.label} did not finish within ${error.timeoutMs} ms (the deadline); the upstream was told to cancel`,
              },
            ],
            isError: true,
          },
        };
      }
      const why = error instanceof ConnectionClosedError ? error.message : (error as Error).message;
      return { kind: 'error', code: -32603, message: `the upstream ${this.label} failed the call: ${why}` };
    } finally {
      this.#inFlight.splice(this.#inFlight.indexOf(request), 1);
    }
  }

  /**
   * A modern tasks/* request for a task this upstream created for `caller`, forwarded and answered
   * as the upstream answered (errors verbatim); undefined when the task is not this upstream's
   * (or not this caller's: to anyone else it is unknown, as a local task would be).
   */
  forwardTask(
    method: 'tasks/get' | 'tasks/update' | 'tasks/cancel' | 'tasks/result',
    params: Record<string, unknown>,
    caller: ForwardedCaller,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> | undefined {
    const taskId = params.taskId as string;
    const owner = { principal: caller.principal, session: caller.session };
    const kind = this.#taskRoutes.find(taskId, owner);
    if (kind === undefined || (kind === 'modern') !== (caller.era === 'modern')) return undefined;
    if (kind !== 'bridged')
      return this.#forwardTaskRequest(method, params, caller.clientCapabilities, signal);
    const client = this.#client;
    if (!client || this.#down !== undefined) return this.#forwardTaskRequest(method, params, {}, signal);
    const bridge = new LegacyTaskBridge(client, withTasks(caller.clientCapabilities));
    switch (method) {
      case 'tasks/get':
        return bridge.get(taskId, signal);
      case 'tasks/cancel':
        return bridge.cancel(taskId, signal);
      case 'tasks/result': {
        const asker: Asker = { era: 'legacy', ask: caller.ask, signal };
        return bridge.result(
          taskId,
          signal,
          this.#questionHandlers(() => asker),
        );
      }
      default:
        return undefined;
    }
  }

  async #forwardTaskRequest(
    method: string,
    params: Record<string, unknown>,
    capabilities: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const client = this.#client;
    if (!client || this.#down !== undefined) {
      throw new ProtocolError(
        -32603,
        `the upstream ${this.label} that holds this task is down (${this.#down}); weft is reconnecting`,
      );
    }
    const { _meta: _callerMeta, ...rest } = params;
    try {
      const {
        resultType: _resultType,
        _meta,
        ...answer
      } = await client.request(method, rest, {
        signal,
        capabilities,
        rounds: 'return',
      });
      return answer;
    } catch (error) {
      if (error instanceof McpError) throw new ProtocolError(error.code, error.message, error.data);
      throw new ProtocolError(
        -32603,
        `the upstream ${this.label} failed ${method}: ${(error as Error).message}`,
      );
    }
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
    for (const name of this.#published.keys()) this.#registry.remove(name);
    this.#published.clear();
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
