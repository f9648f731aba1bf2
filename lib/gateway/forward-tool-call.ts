/**
 * One call of a mounted tool forwarded to its upstream, with its deadline, cancel and progress, and
 * its answer turned into the exact tool's (tools/exact-tool.ts).
 *
 * The call declares upstream the capabilities of the gateway's caller, not the gateway's own, so the
 * upstream asks only what that caller can answer and creates a task only for a caller that declared
 * the tasks extension. A modern caller of a modern upstream gets the upstream's `input_required`
 * as it is (its retry carries the answers and the upstream's sealed requestState back); otherwise
 * questions are relayed (question-relay.ts). A task the upstream creates is recorded in the routes
 * so its tasks/* requests come back here (forwarded-tasks.ts); a legacy caller's task on a modern
 * upstream is asked for the modern way and shown the legacy way (legacy-task-bridge.ts). Failures
 * a user can act on: down or failed calls answer -32603 naming the upstream; a missed deadline is
 * a tool error saying so. Errors name the mount, never its URL or command (mount-naming.ts). The
 * call's `x-mcp-header` arguments are mirrored as `Mcp-Param-*` headers by the upstream's own
 * listing, as any modern HTTP client must.
 */
import { McpError, RequestTimeoutError } from '../client/client-errors.js';
import type { ExactAnswer, ExactCallRequest } from '../tools/exact-tool.js';
import { withTasks } from './forwarded-tasks.js';
import { legacyTaskOf } from './legacy-task-bridge.js';
import { relayQuestions } from './question-relay.js';
import { failedMessage, type UpstreamLink } from './upstream-link.js';
import type { TaskOwner, UpstreamTaskRoutes } from './upstream-task-routes.js';

/** What a forwarded call needs of its mount besides the connection. */
export interface CallSeat {
  readonly routes: UpstreamTaskRoutes;
  /** The calls in flight on this upstream, the most recent last (where logs go). */
  readonly inFlight: ExactCallRequest[];
}

export async function forwardToolCall(
  link: UpstreamLink,
  seat: CallSeat,
  upstreamName: string,
  request: ExactCallRequest,
): Promise<ExactAnswer> {
  const client = link.client();
  if (!client || link.down() !== undefined) {
    return {
      kind: 'error',
      code: -32603,
      message: `${link.name} is down; weft is reconnecting`,
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
  seat.inFlight.push(request);
  try {
    const result = await client.request(
      'tools/call',
      { ...rest, name: upstreamName },
      {
        signal: request.signal,
        timeoutMs: request.budgetMs,
        headers: client.paramHeadersOf(upstreamName, rest.arguments as Record<string, unknown> | undefined),
        capabilities,
        rounds: passRounds ? 'return' : 'answer',
        input: relayQuestions(() => request),
        onprogress: wantsProgress
          ? ({ progressToken: _token, ...progress }) => request.progress(progress)
          : undefined,
      },
    );
    if (result.resultType === 'task' && typeof result.taskId === 'string') {
      if (bridged) {
        seat.routes.add(result.taskId, owner, 'bridged', result.ttlMs);
        return { kind: 'result', result: { task: legacyTaskOf(result) } };
      }
      if (passRounds) {
        const { resultType: _resultType, _meta: _upstreamMeta, ...created } = result;
        seat.routes.add(result.taskId, { principal: request.principal }, 'modern', result.ttlMs);
        return { kind: 'task', task: created };
      }
    }
    const legacyCreated = result.task as { taskId?: unknown; ttl?: unknown } | undefined;
    if (request.era === 'legacy' && client.era === 'legacy' && typeof legacyCreated?.taskId === 'string') {
      seat.routes.add(legacyCreated.taskId, owner, 'legacy', legacyCreated.ttl);
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
              text: `Tool "${upstreamName}" of ${link.name} did not finish within ${error.timeoutMs} ms (the deadline); the upstream was told to cancel`,
            },
          ],
          isError: true,
        },
      };
    }
    return { kind: 'error', code: -32603, message: failedMessage(link, 'the call', error) };
  } finally {
    seat.inFlight.splice(seat.inFlight.indexOf(request), 1);
  }
}
