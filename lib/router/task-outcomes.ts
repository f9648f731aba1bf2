/**
 * What a task's end (or its wait) writes to its record, and how its questions travel: the
 * era-specific rules of task-runner.ts kept in one place. An `isError` result is `failed` in
 * 2025-11-25 and `completed` in 2026-07-28; a JSON-RPC failure is `failed` with `error`; a result
 * is stored as the JSON it will be sent as. A legacy task's requests to the client carry
 * `_meta["io.modelcontextprotocol/related-task"]`.
 */
import type { Outcome } from '../engine/outcome.js';
import { RELATED_TASK_META } from '../protocol/eras.js';
import { ErrorCode } from '../protocol/error-codes.js';
import type { JsonRpcMessage } from '../protocol/json-rpc.js';
import { encodeJson } from '../protocol/message-encoding.js';
import { ProtocolError } from '../protocol/protocol-error.js';
import type { TaskChange, TaskRecord } from '../tasks/task-record.js';
import { isInputRequiredReturn } from '../tools/client-questions.js';
import type { RegisteredTool } from '../tools/registered-tool.js';
import {
  panicMessage,
  shapeSuccess,
  timeoutResult,
  toolFailure,
  unsendable,
} from '../tools/result-shaping.js';
import { overloadedError } from './limit-errors.js';
import type { MessageSink } from './session.js';

export function finalChange(record: TaskRecord, tool: RegisteredTool, outcome: Outcome): TaskChange {
  const legacy = record.era === 'legacy';
  const asResult = (result: Record<string, unknown>): TaskChange => {
    // Legacy counts a tool's own error as a failed task; the 2026-07-28 extension keeps `failed`
    // for JSON-RPC errors and reports an isError result as completed.
    if (result.isError === true && legacy) {
      return { status: 'failed', statusMessage: 'The tool reported an error', result };
    }
    return { status: 'completed', result };
  };
  const asError = (code: number, message: string, data?: unknown): TaskChange => ({
    status: 'failed',
    statusMessage: message,
    error: data === undefined ? { code, message } : { code, message, data },
  });
  switch (outcome.kind) {
    case 'ok': {
      // Stored as the JSON it will be sent as: a value that cannot be sent is the tool's error.
      let shaped: unknown;
      try {
        shaped = shapeSuccess(tool, outcome.value);
      } catch (error) {
        if (error instanceof ProtocolError) return asError(error.code, error.message, error.data);
        return asResult(unsendable(tool, `reading it threw: ${(error as Error)?.message}`) as never);
      }
      const json = encodeJson(shaped);
      if (!json.ok) return asResult(unsendable(tool, json.problem) as never);
      return asResult(JSON.parse(json.text) as Record<string, unknown>);
    }
    case 'tool-error':
      if (outcome.missingCapability !== undefined && !legacy) {
        return asError(ErrorCode.MissingRequiredClientCapability, outcome.message, {
          requiredCapabilities: { [outcome.missingCapability]: {} },
        });
      }
      return asResult(toolFailure(tool, outcome.message) as unknown as Record<string, unknown>);
    case 'timeout':
      return asResult(timeoutResult(tool, outcome.limitMs) as unknown as Record<string, unknown>);
    case 'panicked':
      return asError(ErrorCode.InternalError, panicMessage(tool.name, outcome.publicReason));
    case 'overloaded': {
      const error = overloadedError(outcome);
      return asError(error.code, error.message, error.data);
    }
    case 'cancelled':
      return shutDown(tool);
    case 'input-required':
      throw new Error('unreachable: questions are handled before the final change');
  }
}

/**
 * What an adopted task (followed here after its own replica stopped) writes: its outcome, unless
 * the tool asked for input, which only the replica that accepted the task could have carried on.
 */
export function adoptedChange(record: TaskRecord, tool: RegisteredTool, outcome: Outcome): TaskChange {
  const asked =
    outcome.kind === 'input-required' || (outcome.kind === 'ok' && isInputRequiredReturn(outcome.value));
  if (!asked) return finalChange(record, tool, outcome);
  const message = `The server replica that accepted this task stopped, and tool "${tool.name}" then asked for input, which only that replica could carry on; run the tool again`;
  return { status: 'failed', statusMessage: message, error: { code: ErrorCode.InternalError, message } };
}

export function shutDown(tool: RegisteredTool): TaskChange {
  const message = `The server shut down before tool "${tool.name}" finished; run it again once the server is back`;
  return { status: 'failed', statusMessage: message, error: { code: ErrorCode.ShuttingDown, message } };
}

/** A sink that tags the requests it carries with the task they serve (legacy related-task). */
export function relatedTaskSink(sink: MessageSink, taskId: string): MessageSink {
  const tag = (message: JsonRpcMessage): JsonRpcMessage => {
    if (!('method' in message) || !('id' in message)) return message;
    const params = (message.params ?? {}) as Record<string, unknown>;
    const meta = (params._meta ?? {}) as Record<string, unknown>;
    return { ...message, params: { ...params, _meta: { ...meta, [RELATED_TASK_META]: { taskId } } } };
  };
  const tagged: MessageSink = {
    send: (message) => sink.send(Array.isArray(message) ? message.map(tag) : tag(message)),
  };
  if (sink.backlogBytes) tagged.backlogBytes = () => sink.backlogBytes!();
  return tagged;
}
