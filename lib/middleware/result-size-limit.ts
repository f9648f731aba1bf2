/**
 * Built-in middleware: a cap on the size of a tool's result, per tool, tighter than the server's
 * `maxResultBytes`.
 *
 * A result over its tool's cap is replaced by an `isError` result that says how large it was and
 * how to ask for less: the model can act on that, where a truncated result would mislead it. Size
 * is the UTF-8 length of the result's JSON. Tool errors, cancelled calls, questions to the client
 * and calls that became tasks are passed through untouched.
 */

import type { MiddlewareHooks } from '../router/middleware-chain.js';
import { InputRequiredAnswer } from '../router/mrtr-rounds.js';
import { CreatedTaskAnswer } from '../router/task-wire.js';
import type { CallToolResult } from '../tools/content.js';

export interface ResultSizeLimitOptions {
  /** The cap for every tool not named in `tools`, in bytes (absent: no cap for them). */
  maxBytes?: number;
  /** Caps by tool name, in bytes: `{ export_table: 64_000 }`. */
  tools?: Record<string, number>;
}

export function resultSizeLimit(options: ResultSizeLimitOptions): MiddlewareHooks {
  for (const key of Object.keys(options ?? {})) {
    if (key !== 'maxBytes' && key !== 'tools') {
      throw new TypeError(`resultSizeLimit: unknown option "${key}". Known: maxBytes, tools`);
    }
  }
  const byTool = new Map(Object.entries(options?.tools ?? {}));
  for (const [where, bytes] of [['maxBytes', options?.maxBytes], ...byTool.entries()] as const) {
    if (bytes !== undefined && !(Number.isSafeInteger(bytes) && bytes > 0)) {
      throw new TypeError(
        `resultSizeLimit: the limit for ${where} must be a whole number of bytes > 0, got ${bytes}`,
      );
    }
  }
  const fallback = options?.maxBytes;
  return {
    async onCallTool(ctx, next) {
      const result = await next();
      const tool = typeof ctx.params.name === 'string' ? ctx.params.name : '';
      const limit = byTool.get(tool) ?? fallback;
      if (limit === undefined || !plainResult(result) || result.isError === true) return result;
      const bytes = Buffer.byteLength(JSON.stringify(result));
      if (bytes <= limit) return result;
      return {
        content: [
          {
            type: 'text',
            text:
              `Tool "${tool}" returned ${bytes} bytes, more than its limit of ${limit} bytes ` +
              '(resultSizeLimit); ask for less data, or page through it',
          },
        ],
        isError: true,
      } satisfies CallToolResult;
    },
  };
}

function plainResult(value: unknown): value is CallToolResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    !(value instanceof InputRequiredAnswer) &&
    !(value instanceof CreatedTaskAnswer)
  );
}
