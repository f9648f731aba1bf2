/**
 * The cap on what one tool call may return (`maxResultBytes`).
 *
 * A handler that returns a gigabyte would otherwise be serialized whole onto the transport, holding
 * the memory and the connection for every other call. Past the cap the call ends as a tool error
 * that says how large the result was, so a model can ask for less; nothing is truncated silently.
 */
import type { Outcome } from './outcome.js';

/** The size of a result as JSON text, in UTF-16 code units (a close, cheap bound on its bytes). */
export function resultSize(value: unknown): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'string') return value.length;
  if (typeof value !== 'object') return 0;
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    // Not JSON at all (a cycle, a BigInt): result shaping reports that, not the size check.
    return 0;
  }
}

export function limitResult(toolName: string, outcome: Outcome, maxResultBytes: number): Outcome {
  if (outcome.kind !== 'ok' || maxResultBytes <= 0) return outcome;
  const size = resultSize(outcome.value);
  if (size <= maxResultBytes) return outcome;
  return {
    kind: 'tool-error',
    message:
      `Tool "${toolName}" returned about ${size} bytes, more than this server's limit of ` +
      `${maxResultBytes} bytes (maxResultBytes); ask for less data, or page through it`,
  };
}
