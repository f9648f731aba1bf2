/**
 * `ctx.tools()`, `ctx.resources()` and `ctx.prompts()` inside a pool thread or process: each member
 * sends a PeerOp to the main thread (lib/engine/peer-ops.ts) and resolves with its answer, so a
 * handler reads exactly as it does inline.
 *
 * What cannot cross is refused here, before anything is sent, with what to do instead: a handler
 * function or a resource reader lives in this thread's memory, and the main thread could not call it.
 * A module-defined tool can be added, since the main thread and the pool import its module themselves.
 */
import type { PeerNamespace, PeerOp, SentCallOutcome } from '../lib/engine/peer-ops.js';
import type { PromptsView } from '../lib/prompts/prompts-view.js';
import type { ResourcesView } from '../lib/resources/resources-view.js';
import type { ToolCallOutcome, ToolsView } from '../lib/tools/tool-context.js';

/** Sends one PeerOp to the main thread; rejects with the error the main thread reported. */
export type SendPeerOp = (op: PeerOp) => Promise<unknown>;

export interface RemoteViews {
  tools(): ToolsView;
  resources(): ResourcesView;
  prompts(): PromptsView;
}

export function remoteViews(send: SendPeerOp): RemoteViews {
  const op =
    (namespace: PeerNamespace, member: string) =>
    (...args: unknown[]) =>
      send({ namespace, member, args });
  const tools = {
    list: op('tools', 'list'),
    find: op('tools', 'find'),
    findMany: op('tools', 'findMany'),
    call: op('tools', 'call'),
    callAll: async (calls: unknown) =>
      ((await send({ namespace: 'tools', member: 'callAll', args: [calls] })) as SentCallOutcome[]).map(
        (outcome): ToolCallOutcome =>
          outcome.ok
            ? (outcome as ToolCallOutcome)
            : { name: outcome.name, ok: false, error: rebuiltError(outcome.message, outcome.code) },
      ),
    add: async (definition: object) =>
      send({ namespace: 'tools', member: 'add', args: [sendableToolDefinition(definition)] }),
    remove: op('tools', 'remove'),
  } as ToolsView;
  const cannotAdd = (what: string) => () =>
    Promise.reject(
      new Error(
        `ctx.${what} cannot be called from a blocking or process-isolated tool: its definition holds a ` +
          'function, and a function cannot be sent from a pool thread or process to the main thread. ' +
          'Register it at server start, or from an inline tool (blocking: false)',
      ),
    );
  const resources = {
    list: op('resources', 'list'),
    templates: op('resources', 'templates'),
    find: op('resources', 'find'),
    read: op('resources', 'read'),
    isSubscribed: op('resources', 'isSubscribed'),
    add: cannotAdd('resources().add'),
    addTemplate: cannotAdd('resources().addTemplate'),
    remove: op('resources', 'remove'),
    notifyUpdated: op('resources', 'notifyUpdated'),
    updated: op('resources', 'notifyUpdated'),
  } as ResourcesView;
  const prompts = {
    list: op('prompts', 'list'),
    find: op('prompts', 'find'),
    get: op('prompts', 'get'),
    add: cannotAdd('prompts().add'),
    remove: op('prompts', 'remove'),
  } as PromptsView;
  return { tools: () => tools, resources: () => resources, prompts: () => prompts };
}

/**
 * A tool definition as the main thread can receive it: a module-defined tool without its handler
 * (the pool imports the module for it). An inline tool, or any other function, is refused.
 */
function sendableToolDefinition(definition: object): object {
  const { handler: _handler, ...rest } = definition as Record<string, unknown>;
  const isModuleTool = (rest.blocking === true || rest.isolation !== undefined) && rest.module !== undefined;
  const functions = Object.entries(isModuleTool ? rest : definition).filter(
    ([, value]) => typeof value === 'function',
  );
  if (!isModuleTool || functions.length > 0) {
    const names = functions.map(([key]) => key).join(', ') || 'handler';
    throw new Error(
      `ctx.tools().add cannot register this tool from a blocking or process-isolated tool: its ${names} ` +
        'is a function, and a function cannot be sent from a pool thread or process to the main thread. ' +
        'Add a module-defined tool instead ({ blocking: true, module: import.meta.url, ... } in a module ' +
        'of its own), or add it from an inline tool',
    );
  }
  return { ...rest, module: String(rest.module) };
}

/** The main thread's error, as an Error again (with its JSON-RPC code when it had one). */
export function rebuiltError(message: string, code: number | undefined): Error {
  const error = new Error(message);
  if (code !== undefined) Object.assign(error, { code });
  return error;
}
