/**
 * `tools/call` for an exact (mounted) tool: no argument check, no result shaping, no framework
 * errors (tools/exact-tool.ts says why). The call is still a weft request: it is tracked in the
 * session so the client's cancel (legacy notification, modern stream close, the session ending)
 * aborts it, it gets what remains of the server's deadline, and its progress and logs are sent to
 * the client under the client's own token and level. Whatever the upstream answered is sent as it
 * is: a result, a modern question (inputRequests and the upstream's own requestState, which a
 * modern client's retry brings back to it), or a JSON-RPC error with its code and data.
 */
import { principalKey } from '../auth/principal.js';
import { effectiveBudgetMs } from '../engine/deadline.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { notification } from '../protocol/json-rpc.js';
import { logLevelIndex } from '../protocol/log-levels.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import type { ExactCall } from '../tools/exact-tool.js';
import { type MethodContext, NO_RESPONSE } from './method-table.js';
import { InputRequiredAnswer } from './mrtr-rounds.js';
import { ownerOf } from './task-runner.js';
import { CreatedTaskAnswer } from './task-wire.js';

export async function runExactCall(
  ctx: MethodContext,
  call: ExactCall,
  serverTimeoutMs: number,
): Promise<unknown> {
  const { session, request, scope, params, sink } = ctx;
  const cancellation = session.begin(request.id);
  const token = (params._meta as { progressToken?: unknown } | undefined)?.progressToken;
  try {
    const answer = await call({
      params,
      signal: cancellation.signal,
      budgetMs: effectiveBudgetMs(serverTimeoutMs, 0),
      era: scope.era,
      clientCapabilities: scope.clientCapabilities,
      principal: scope.principal === undefined ? undefined : principalKey(scope.principal),
      session: ownerOf(session),
      progress: (progress) => {
        if (typeof token !== 'string' && typeof token !== 'number') return;
        sink.send(notification('notifications/progress', { ...progress, progressToken: token }));
      },
      log: (message) => {
        if (logLevelIndex(message.level) < scope.minLogLevel) return;
        sink.send(notification('notifications/message', message));
      },
      ask: (method, questionParams, signal) => session.request(method, questionParams, signal, sink),
    });
    if (cancellation.cancelled) return NO_RESPONSE;
    switch (answer.kind) {
      case 'result': {
        // The upstream's era markers are its own; this server's answer gets this server's.
        const { resultType: _resultType, ...result } = answer.result;
        return result;
      }
      case 'input-required':
        return new InputRequiredAnswer(
          answer.inputRequests as ConstructorParameters<typeof InputRequiredAnswer>[0],
          answer.requestState as string,
        );
      case 'error':
        throw new ProtocolError(answer.code, answer.message, answer.data);
      case 'task':
        return new CreatedTaskAnswer(answer.task);
      case 'cancelled':
        return NO_RESPONSE;
    }
  } catch (error) {
    if (cancellation.cancelled) return NO_RESPONSE;
    if (error instanceof ProtocolError) throw error;
    throw new ProtocolError(ErrorCode.InternalError, (error as Error)?.message ?? String(error));
  } finally {
    session.end(request.id);
  }
}
