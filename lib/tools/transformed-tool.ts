/**
 * What a definition made by `transformTool` carries for the registry and the engine, beside the
 * options a user can read: kept under symbols, so `Object.keys` (the registry's option check, a
 * spread into another definition's options) never sees them as options, and no user option can
 * be mistaken for them.
 *
 * - `map`: the published arguments back to the original's (argument-mapping.ts). The registry runs
 *   it right after the argument check, so the call carries the original's arguments from there
 *   on: to an inline handler, across to a pool thread or process, onto a fleet job.
 * - `handlerName`: the name under which a blocking original's module holds its handler; a renamed
 *   blocking tool still runs its original's export.
 * - `pooledOriginal`: a custom handler over a blocking original runs on the main thread, and its
 *   `forward` must reach the pooled original: the registry compiles this definition next to the
 *   transformed one, and the engine runs `forward` as a call of it (engine/forwarded-call.ts).
 */
import type { ArgumentMap } from './argument-mapping.js';

export const TRANSFORMED: unique symbol = Symbol('weft.transformed-tool');

/**
 * The method an inline call's ctx has when its tool forwards to a pooled original: runs the
 * original in the pool with what remains of the call's deadline, cancelled with it.
 */
export const FORWARD_TO_POOL: unique symbol = Symbol('weft.forward-to-pool');

export interface TransformedInfo {
  readonly map?: ArgumentMap;
  readonly handlerName?: string;
  readonly pooledOriginal?: object;
}

export function transformedInfo(definition: object): TransformedInfo | undefined {
  return (definition as { [TRANSFORMED]?: TransformedInfo })[TRANSFORMED];
}

export interface ForwardingContext {
  [FORWARD_TO_POOL]?: (args: Record<string, unknown>) => Promise<unknown>;
}
