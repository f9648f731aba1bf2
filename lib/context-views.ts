/**
 * What a handler can reach beyond its own call (`ctx.elicit`, `ctx.sample`, `ctx.roots`, `ctx.tools()`,
 * `ctx.resources()`, `ctx.prompts()`), built per call from the server's registries and the
 * calling session.
 *
 * `ctx.tools().call(...)` goes through the router like any client call (validation, deadline,
 * result shaping, cancellation), under an id of its own in the caller's session and the scope of the
 * request that made it; when the outer call is abandoned, the inner one is cancelled with it.
 */
import type { CallPeer } from './engine/engine-call.js';
import type { PromptRegistry } from './prompts/prompt-registry.js';
import type { PromptDescriptor, PromptsView } from './prompts/prompts-view.js';
import { type JsonRpcMessage, type JsonRpcResponse, notification } from './protocol/json-rpc.js';
import { ProtocolError } from './protocol/protocol-error.js';
import type { ResourceRegistry } from './resources/resource-registry.js';
import type { ResourceDescriptor, ResourcesView, TemplateDescriptor } from './resources/resources-view.js';
import type { MethodContext } from './router/method-table.js';
import { InputRequiredAnswer } from './router/mrtr-rounds.js';
import type { RequestScope } from './router/request-scope.js';
import type { Router } from './router/router.js';
import { requireScopes, visibleEntries } from './router/scope-check.js';
import type { Session } from './router/session.js';
import type { CallToolResult } from './tools/content.js';
import { CallAbandonedError, type ToolCallOutcome, type ToolsView } from './tools/tool-context.js';
import type { ToolRegistry } from './tools/tool-registry.js';

export interface ServerParts {
  router: Router;
  tools: ToolRegistry;
  addTool: (definition: object) => void;
  resources: ResourceRegistry;
  prompts: PromptRegistry;
  /** Tells subscribed sessions that a resource changed. */
  resourceUpdated: (uri: string) => void;
  /** The server's `listOutOfScope`: whether listings show what the caller's scopes do not reach. */
  listOutOfScope: boolean;
}

let innerCalls = 0;

export function callPeer(parts: ServerParts, { session, sink, scope }: MethodContext): CallPeer {
  return {
    clientCapabilities: scope.clientCapabilities,
    request: scope.serverRequests
      ? (method, params, signal) => session.request(method, params, signal, sink)
      : (method) => Promise.reject(new Error(noClientRequests(method, scope))),
    tools: (signal) => toolsView(parts, session, scope, signal),
    resources: () => resourcesView(parts, session, scope),
    prompts: () => promptsView(parts, scope),
  };
}

/**
 * Why a request to the client fails in a request of an era without server-to-client requests. A
 * handler's ctx.elicit / ctx.sample / ctx.roots never get here in that era (they ask in rounds,
 * see router/mrtr-rounds.ts); this guards any other way a request could be attempted.
 */
function noClientRequests(method: string, scope: RequestScope): string {
  return (
    `Cannot send ${method} to the client: a ${scope.version} request allows no requests from the server ` +
    'to the client; ask with ctx.elicit, ctx.sample or ctx.roots, which take rounds (input_required)'
  );
}

function toolsView(
  parts: ServerParts,
  session: Session,
  scope: RequestScope,
  signal: AbortSignal,
): ToolsView {
  const call = (name: string, args: Record<string, unknown> = {}) =>
    innerCall(parts, session, scope, signal, name, args);
  return {
    list: async (filter) =>
      visibleEntries(parts.tools.sorted(), scope, parts.listOutOfScope)
        .filter((tool) => hasAnyTag(tool.tags, filter?.tags))
        .map((tool) => tool.descriptor),
    find: async (name) => parts.tools.get(name)?.descriptor,
    findMany: async (names) =>
      names.flatMap((name) => {
        const tool = parts.tools.get(name);
        return tool ? [tool.descriptor] : [];
      }),
    add: async (definition) => parts.addTool(definition),
    remove: async (name) => parts.tools.remove(name),
    call,
    callAll: (calls) =>
      Promise.all(
        calls.map(
          ({ name, arguments: args }): Promise<ToolCallOutcome> =>
            call(name, args).then(
              (result) => ({ name, ok: true, result }),
              (error: unknown) => ({
                name,
                ok: false,
                error: error instanceof Error ? error : new Error(String(error)),
              }),
            ),
        ),
      ),
  };
}

/** Whether an entry carries one of the tags asked for; no filter keeps everything. */
function hasAnyTag(tags: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  if (wanted === undefined) return true;
  return tags !== undefined && wanted.some((tag) => tags.includes(tag));
}

async function innerCall(
  parts: ServerParts,
  session: Session,
  scope: RequestScope,
  signal: AbortSignal,
  name: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  const id = `weft-inner-${++innerCalls}`;
  let answer: JsonRpcResponse | undefined;
  const capture = {
    send(message: JsonRpcMessage | JsonRpcMessage[]) {
      if (!Array.isArray(message) && 'id' in message && message.id === id)
        answer = message as JsonRpcResponse;
    },
  };
  const cancel = () => session.cancel(id);
  if (signal.aborted) throw new CallAbandonedError('cancelled');
  signal.addEventListener('abort', cancel, { once: true });
  try {
    await parts.router.receive(
      session,
      { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } },
      capture,
      scope,
    );
  } finally {
    signal.removeEventListener('abort', cancel);
  }
  const settled = answer as JsonRpcResponse | undefined;
  if (settled === undefined) throw new CallAbandonedError('cancelled');
  if ('error' in settled)
    throw new ProtocolError(settled.error.code, settled.error.message, settled.error.data);
  if (settled.result instanceof InputRequiredAnswer) {
    // Its round would have to become the caller's, which weft does not do (yet).
    throw new Error(
      `Tool "${name}" asks the client for input, which a call through ctx.tools().call cannot relay ` +
        `in a ${scope.version} request; ask in the calling handler instead`,
    );
  }
  return settled.result as CallToolResult;
}

/**
 * A read or get through a view runs under the calling request's principal: the reader sees it as
 * ctx.auth, and its scopes are checked as for a client's read (-32012 when it lacks them).
 */
function resourcesView(parts: ServerParts, session: Session, scope: RequestScope): ResourcesView {
  const notifyUpdated = async (uri: string) => parts.resourceUpdated(uri);
  return {
    list: async (filter) =>
      visibleEntries(parts.resources.sortedResources(), scope, parts.listOutOfScope)
        .filter((entry) => hasAnyTag(entry.tags, filter?.tags))
        .map((entry) => entry.descriptor as ResourceDescriptor),
    templates: async () =>
      visibleEntries(parts.resources.sortedTemplates(), scope, parts.listOutOfScope).map(
        (entry) => entry.descriptor as TemplateDescriptor,
      ),
    find: async (uri) =>
      parts.resources.sortedResources().find((entry) => entry.key === uri)?.descriptor as
        | ResourceDescriptor
        | undefined,
    read: async (uri) => {
      const scopes = parts.resources.scopesOf(uri);
      if (scopes !== undefined) requireScopes(scope, scopes, `resource ${uri}`);
      return parts.resources.read(uri, { signal: new AbortController().signal, auth: scope.principal });
    },
    isSubscribed: async (uri) => session.subscriptions.has(uri),
    add: async (definition) => parts.resources.add(definition),
    addTemplate: async (definition) => parts.resources.addTemplate(definition),
    remove: async (uri) => parts.resources.remove(uri),
    notifyUpdated,
    updated: notifyUpdated,
  };
}

function promptsView(parts: ServerParts, scope: RequestScope): PromptsView {
  return {
    list: async (filter) =>
      visibleEntries(parts.prompts.sorted(), scope, parts.listOutOfScope)
        .filter((entry) => hasAnyTag(entry.tags, filter?.tags))
        .map((entry) => entry.descriptor as PromptDescriptor),
    find: async (name) =>
      parts.prompts.sorted().find((entry) => entry.name === name)?.descriptor as PromptDescriptor | undefined,
    get: async (name, args) => {
      const scopes = parts.prompts.scopesOf(name);
      if (scopes !== undefined) requireScopes(scope, scopes, `prompt "${name}"`);
      return parts.prompts.get(name, args, { signal: new AbortController().signal, auth: scope.principal });
    },
    add: async (definition) => parts.prompts.add(definition),
    remove: async (name) => parts.prompts.remove(name),
  };
}

/** The notification a session receives when a resource it subscribed to changes. */
export const resourceUpdatedNotification = (uri: string) =>
  notification('notifications/resources/updated', { uri });
