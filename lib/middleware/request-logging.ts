/**
 * Built-in middleware: one structured log line per request, written when its answer is known.
 *
 * Each line is one JSON object (no newline) handed to the logger you pass, so it goes wherever
 * your logs go (stderr, a file, pino). It names the method, the era and version, the caller
 * (issuer and subject, never the token or its claims), the tool / prompt / resource asked for,
 * how long the server took, and how it ended: `ok`, `tool-error` (an `isError` result), `error`
 * (a JSON-RPC error, with its code) or `no-answer` (a call the client cancelled).
 */
import { ProtocolError } from '../protocol/protocol-error.js';
import { NO_RESPONSE } from '../router/method-table.js';
import type { MiddlewareContext, MiddlewareHooks } from '../router/middleware-chain.js';

export interface RequestLogEntry {
  time: string;
  method: string;
  id: string | number | undefined;
  era: 'legacy' | 'modern';
  version: string | undefined;
  principal?: { issuer: string | undefined; subject: string };
  /** The tool, prompt (`params.name`) or resource (`params.uri`) the request named. */
  name?: string;
  durationMs: number;
  outcome: 'ok' | 'tool-error' | 'error' | 'no-answer';
  errorCode?: number;
  error?: string;
}

export interface RequestLoggingOptions {
  /** Receives each line: one JSON text, without a trailing newline. */
  logger: (line: string) => void;
}

export function requestLogging(options: RequestLoggingOptions): MiddlewareHooks {
  const logger = options?.logger;
  if (typeof logger !== 'function') {
    throw new TypeError(
      "requestLogging: pass { logger: (line) => ... }, e.g. { logger: (line) => process.stderr.write(line + '\\n') }",
    );
  }
  for (const key of Object.keys(options)) {
    if (key !== 'logger') throw new TypeError(`requestLogging: unknown option "${key}". Known: logger`);
  }
  return {
    async onRequest(ctx, next) {
      try {
        const result = await next();
        const outcome =
          result === NO_RESPONSE
            ? 'no-answer'
            : (result as { isError?: unknown } | null)?.isError === true
              ? 'tool-error'
              : 'ok';
        logger(JSON.stringify(entry(ctx, outcome)));
        return result;
      } catch (error) {
        const failed = entry(ctx, 'error');
        if (error instanceof ProtocolError) {
          failed.errorCode = error.code;
          failed.error = error.message;
        } else {
          failed.errorCode = -32603;
          failed.error = 'Internal error';
        }
        logger(JSON.stringify(failed));
        throw error;
      }
    },
  };
}

function entry(ctx: MiddlewareContext, outcome: RequestLogEntry['outcome']): RequestLogEntry {
  const line: RequestLogEntry = {
    time: new Date(ctx.startedAt).toISOString(),
    method: ctx.method,
    id: ctx.id,
    era: ctx.era,
    version: ctx.version,
    durationMs: Math.round(ctx.elapsedMs() * 1000) / 1000,
    outcome,
  };
  if (ctx.principal !== undefined) {
    line.principal = { issuer: ctx.principal.issuer, subject: ctx.principal.subject };
  }
  const named = typeof ctx.params.name === 'string' ? ctx.params.name : ctx.params.uri;
  if (typeof named === 'string') line.name = named;
  return line;
}
