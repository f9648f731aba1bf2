/**
 * The tasks/* requests for a task a mounted upstream created, forwarded to that upstream rather
 * than answered by the gateway (it runs no task of its own for a mounted tool). A modern caller's
 * task, and a legacy caller's on a legacy upstream, are forwarded as they are, the upstream's
 * answers and errors verbatim; a legacy caller's task on a modern upstream goes through the
 * bridge (legacy-task-bridge.ts). UpstreamTaskRoutes says whose task it is, so to any other caller
 * it is unknown, as a local task would be.
 */
import { McpError } from '../client/client-errors.js';
import { TASKS_EXTENSION } from '../protocol/eras.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import type { ForwardedCaller } from '../router/task-methods.js';
import { LegacyTaskBridge } from './legacy-task-bridge.js';
import { type Asker, relayQuestions } from './question-relay.js';
import { failedMessage, type UpstreamLink } from './upstream-link.js';
import type { UpstreamTaskRoutes } from './upstream-task-routes.js';

export type ForwardedTaskMethod = 'tasks/get' | 'tasks/update' | 'tasks/cancel' | 'tasks/result';

/** The caller's capabilities with the tasks extension (the gateway follows a bridged task itself). */
export function withTasks(capabilities: Record<string, unknown>): Record<string, unknown> {
  const extensions = (capabilities.extensions ?? {}) as Record<string, unknown>;
  return { ...capabilities, extensions: { ...extensions, [TASKS_EXTENSION]: {} } };
}

/**
 * A tasks/* request for a task this upstream created for `caller`, forwarded and answered as the
 * upstream answered; undefined when the task is not this upstream's (or not this caller's).
 */
export function forwardTask(
  link: UpstreamLink,
  routes: UpstreamTaskRoutes,
  method: ForwardedTaskMethod,
  params: Record<string, unknown>,
  caller: ForwardedCaller,
  signal: AbortSignal,
): Promise<Record<string, unknown>> | undefined {
  const taskId = params.taskId as string;
  const owner = { principal: caller.principal, session: caller.session };
  const kind = routes.find(taskId, owner);
  if (kind === undefined || (kind === 'modern') !== (caller.era === 'modern')) return undefined;
  if (kind !== 'bridged') return forwardTaskRequest(link, method, params, caller.clientCapabilities, signal);
  const client = link.client();
  if (!client || link.down() !== undefined) return forwardTaskRequest(link, method, params, {}, signal);
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
        relayQuestions(() => asker),
      );
    }
    default:
      return undefined;
  }
}

/** One tasks/* request as it is; the upstream's era markers are its own, so they are left out. */
async function forwardTaskRequest(
  link: UpstreamLink,
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown>,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const client = link.client();
  if (!client || link.down() !== undefined) {
    throw new ProtocolError(-32603, `${link.name}, which holds this task, is down; weft is reconnecting`);
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
    throw new ProtocolError(-32603, failedMessage(link, method, error, signal));
  }
}
