/**
 * `transformTool`: a new tool derived from an existing one, its published face changed (name,
 * title, description, tags, arguments renamed, described, defaulted or hidden) while the original
 * still does the work. The published schema is derived from the original's (argument-mapping.ts),
 * so the two cannot drift; a hidden argument must have a default (checked here, when the tool is
 * made), since no caller can send it any more.
 *
 * Where the original runs does not change:
 * - without a custom `handler`, the transformed tool is the original under a new face: an inline
 *   original's handler, or a blocking original's module and export, run in the pool with its
 *   deadline, cancel, grace and termination. The registry maps the arguments right after checking
 *   them against the published schema (transformed-tool.ts), so they cross to a thread, a process
 *   or a fleet job already in the original's names.
 * - a custom `handler(args, ctx, forward)` runs on the main thread (it is a function, and only a
 *   module's exports cross to a worker). `forward(args)` maps the published names back and runs
 *   the original: an inline one directly, a blocking one as a pool call of its own, given what
 *   remains of the call's deadline and cancelled with it (engine/forwarded-call.ts).
 *
 * Mounted (upstream) tools are transformed by `server.mount(upstream, { transform })`, through the
 * same derivation (gateway/mounted-transform.ts). A Standard Schema (zod) has no properties to
 * rename and is refused with a message.
 */
import { type ArgumentTransform, composeMaps, deriveArguments } from './argument-mapping.js';
import type { ToolContext } from './tool-context.js';
import type { ToolDefinition } from './tool-definition.js';
import { FORWARD_TO_POOL, type ForwardingContext, TRANSFORMED, transformedInfo } from './transformed-tool.js';

export type { ArgumentTransform } from './argument-mapping.js';

type Args = Record<string, unknown>;

export interface ToolTransform {
  name?: string;
  title?: string;
  description?: string;
  tags?: string[];
  /** Keyed by the ORIGINAL argument names. */
  args?: Record<string, ArgumentTransform>;
  /** Replaces the handler; `forward(args)` (new names) runs the original. */
  handler?: (args: Args, ctx: ToolContext, forward: (args: Args) => Promise<unknown>) => unknown;
}

export const TRANSFORM_KEYS: ReadonlySet<string> = new Set([
  'name',
  'title',
  'description',
  'tags',
  'args',
  'handler',
]);

/** Options only a blocking tool has: a custom handler's tool runs inline, without them. */
const BLOCKING_ONLY = ['module', 'export', 'resourceLimits', 'isolation', 'env', 'placement', 'fleetRetries'];

/** The checks of a transformation's own options (not its arguments), shared with mounts. */
export function checkTransformOptions(transform: unknown, fail: (message: string) => never): void {
  if (typeof transform !== 'object' || transform === null || Array.isArray(transform)) {
    fail('a transformation must be an object of { name?, title?, description?, tags?, args?, handler? }');
  }
  const spec = transform as ToolTransform;
  for (const key of Object.keys(spec)) {
    if (!TRANSFORM_KEYS.has(key)) fail(`unknown option "${key}"; known: ${[...TRANSFORM_KEYS].join(', ')}`);
  }
  for (const key of ['name', 'title', 'description'] as const) {
    if (spec[key] !== undefined && typeof spec[key] !== 'string') fail(`${key} must be a string`);
  }
  if (spec.handler !== undefined && typeof spec.handler !== 'function') fail('handler must be a function');
  const { tags } = spec;
  if (
    tags !== undefined &&
    !(Array.isArray(tags) && tags.every((tag) => typeof tag === 'string' && tag !== ''))
  ) {
    fail('tags must be an array of non-empty strings');
  }
}

export function transformTool(
  tool: ToolDefinition<never, never> | object,
  transform: ToolTransform,
): ToolDefinition<never, never> {
  const original = tool as ToolDefinition & { blocking?: boolean };
  const label = `transformTool("${String(original?.name)}")`;
  const fail = (message: string): never => {
    throw new TypeError(`${label}: ${message}`);
  };
  if (typeof original !== 'object' || original === null) fail('the tool must be a tool definition');
  checkTransformOptions(transform, fail);
  const blocking = original.blocking === true;
  if (!blocking && typeof original.handler !== 'function') fail('the tool has no handler to forward to');
  const derived = deriveArguments(original.inputSchema, transform.args, fail);
  const before = transformedInfo(original);

  const result: Record<string | symbol, unknown> = { ...original, inputSchema: derived.inputSchema };
  result.name = transform.name ?? original.name;
  for (const key of ['title', 'description', 'tags'] as const) {
    if (transform[key] !== undefined) result[key] = transform[key];
  }
  const { handler: custom } = transform;
  if (!custom) {
    // The original under a new face: the registry maps each call's arguments back.
    result[TRANSFORMED] = {
      ...before,
      map: composeMaps(derived.map, before?.map),
      ...(blocking ? { handlerName: before?.handlerName ?? original.name } : {}),
    };
    return result as unknown as ToolDefinition<never, never>;
  }

  const mapForward = (args: Args): Args => {
    const mapped = derived.map(args ?? {});
    if (!mapped.ok) throw new TypeError(`forward to "${original.name}": ${mapped.problem}`);
    return mapped.value as Args;
  };
  if (blocking) {
    // The custom handler runs inline; the pooled original is reached through the call's ctx.
    for (const key of BLOCKING_ONLY) delete result[key];
    result.blocking = false;
    result[TRANSFORMED] = { pooledOriginal: original };
    result.handler = (args: Args, ctx: ToolContext) =>
      custom(args, ctx, async (forwarded) => {
        const run = (ctx as ForwardingContext)[FORWARD_TO_POOL];
        if (!run) throw new Error(`forward to "${original.name}": this call cannot reach the pool`);
        return run.call(ctx, mapForward(forwarded));
      });
    return result as unknown as ToolDefinition<never, never>;
  }
  // An inline original (perhaps itself transformed: its own mapping runs after this one's).
  const originalHandler = original.handler as (args: Args, ctx: ToolContext) => unknown;
  const originalMap = before?.map;
  result[TRANSFORMED] = before?.pooledOriginal ? { pooledOriginal: before.pooledOriginal } : undefined;
  if (result[TRANSFORMED] === undefined) delete result[TRANSFORMED];
  result.handler = (args: Args, ctx: ToolContext) =>
    custom(args, ctx, async (forwarded) => {
      let mapped = mapForward(forwarded);
      if (originalMap) {
        const again = originalMap(mapped);
        if (!again.ok) throw new TypeError(`forward to "${original.name}": ${again.problem}`);
        mapped = again.value as Args;
      }
      return originalHandler(mapped, ctx);
    });
  return result as unknown as ToolDefinition<never, never>;
}
