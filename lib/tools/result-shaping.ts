/**
 * Turns whatever a handler returned into a CallToolResult, and the failure outcomes into the
 * `isError` results the spec asks for (so a model can read what went wrong and try again).
 *
 * With an outputSchema, a successful result must carry conforming structuredContent; a handler that
 * breaks its own schema gets a tool error naming the mismatch rather than a silently wrong answer.
 * A value with a `content` member is taken as a CallToolResult and must have its shape
 * (result-check.ts); bare bytes follow the bytes rule (binary-content.ts); any other value is data,
 * sent as JSON text.
 */
import { encodeJson } from '../protocol/message-encoding.js';
import { bytesResult, isBytes } from './binary-content.js';
import type { CallToolResult } from './content.js';
import { textResult } from './content.js';
import type { RegisteredTool } from './registered-tool.js';
import { callToolResultProblem, looksLikeCallToolResult } from './result-check.js';

export function shapeSuccess(tool: RegisteredTool, value: unknown): CallToolResult {
  if (looksLikeCallToolResult(value)) {
    const problem = callToolResultProblem(value);
    if (problem)
      return toolFailure(tool, `Tool "${tool.name}" returned an invalid CallToolResult: ${problem}`);
    if (tool.checkOutput && value.isError !== true) {
      if (value.structuredContent === undefined) {
        return toolFailure(
          tool,
          `Tool "${tool.name}" declares an outputSchema but returned no structuredContent`,
        );
      }
      const checked = tool.checkOutput(value.structuredContent);
      if (!checked.ok) return outputMismatch(tool, checked.problem);
      if (checked.value !== value.structuredContent) {
        return {
          ...(value as unknown as CallToolResult),
          structuredContent: checked.value as Record<string, unknown>,
        };
      }
    }
    return value as unknown as CallToolResult;
  }
  if (isBytes(value)) {
    const shaped = bytesResult(tool.name, value);
    return 'result' in shaped ? shapeSuccess(tool, shaped.result) : toolFailure(tool, shaped.refusal);
  }
  if (tool.checkOutput) {
    const checked = tool.checkOutput(value);
    if (!checked.ok) return outputMismatch(tool, checked.problem);
    const json = encodeJson(checked.value);
    if (!json.ok) return unsendable(tool, json.problem);
    return {
      content: [{ type: 'text', text: json.text }],
      structuredContent: checked.value as Record<string, unknown>,
    };
  }
  if (typeof value === 'string') return textResult(value);
  if (value === undefined || value === null) return { content: [] };
  const json = encodeJson(value);
  return json.ok ? textResult(json.text) : unsendable(tool, json.problem);
}

/**
 * A result past `maxResultBytes`: it would hold the memory and the connection for every other call,
 * so it is dropped, never truncated silently, and the model is told how to ask for less.
 */
export function tooLarge(tool: RegisteredTool, size: number, maxResultBytes: number): CallToolResult {
  return toolFailure(
    tool,
    `Tool "${tool.name}" returned about ${size} bytes, more than this server's limit of ` +
      `${maxResultBytes} bytes (maxResultBytes); ask for less data, or page through it`,
  );
}

/** The result of a handler whose value cannot be turned into JSON (see protocol/message-encoding). */
export function unsendable(tool: RegisteredTool, problem: string): CallToolResult {
  return toolFailure(tool, `Tool "${tool.name}" returned a value that cannot be sent as JSON: ${problem}`);
}

/** The result of a handler that threw: its message, never its stack. */
export function toolFailure(tool: RegisteredTool, message: string): CallToolResult {
  return withStructured(textResult(message, true), tool.structuredFailure?.error);
}

export function invalidArguments(tool: RegisteredTool, problem: string): CallToolResult {
  return withStructured(
    textResult(`Invalid arguments for tool "${tool.name}": ${problem}`, true),
    tool.structuredFailure?.error,
  );
}

export function timeoutResult(tool: RegisteredTool, limitMs: number): CallToolResult {
  return withStructured(
    textResult(
      `Tool "${tool.name}" timed out: it did not finish within its ${limitMs} ms deadline, and was stopped`,
      true,
    ),
    tool.structuredFailure?.timeout,
  );
}

function outputMismatch(tool: RegisteredTool, problem: string): CallToolResult {
  return toolFailure(
    tool,
    `Tool "${tool.name}" returned output that does not match its outputSchema: ${problem}`,
  );
}

function withStructured(
  result: CallToolResult,
  structured: Record<string, unknown> | undefined,
): CallToolResult {
  if (structured !== undefined) result.structuredContent = structured;
  return result;
}

/**
 * The client's side of a panicked call (-32603): which tool, and what stopped it in words that
 * give nothing of the server away; the whole story is in the server log.
 */
export function panicMessage(
  toolName: string,
  publicReason = 'the worker running it stopped unexpectedly',
): string {
  return `Tool "${toolName}" failed: ${publicReason} (details are in the server log)`;
}
