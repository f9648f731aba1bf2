/**
 * `transformTool`: a new tool derived from an existing one, its published face changed (name,
 * title, description, tags, arguments renamed, described, defaulted or hidden) while the original's
 * handler still does the work. The published schema is derived from the original's, so the two
 * cannot drift; a hidden argument must have a default (checked here, when the tool is made), since
 * no caller can send it any more. A custom `handler` may call `forward(args)`, which maps the new
 * argument names back, fills defaults and hidden values, and runs the original.
 *
 * Inline tools with a JSON Schema `inputSchema` only: a blocking tool's handler runs from its module
 * in a worker, where this mapping does not travel, and a Standard Schema (zod) has no properties
 * to rename. Both are refused with a message.
 */
import type { ToolContext } from './tool-context.js';
import type { ToolDefinition } from './tool-definition.js';

export interface ArgumentTransform {
  /** The argument's new name. */
  rename?: string;
  description?: string;
  /** Used when the caller leaves the argument out (and published as the schema's `default`). */
  default?: unknown;
  /** Removes the argument from the published schema; it then always takes its `default`. */
  hide?: boolean;
}

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

const TRANSFORM_KEYS = new Set(['name', 'title', 'description', 'tags', 'args', 'handler']);
const ARGUMENT_KEYS = new Set(['rename', 'description', 'default', 'hide']);

export function transformTool(
  tool: ToolDefinition<never, never> | object,
  transform: ToolTransform,
): ToolDefinition<never, never> {
  const original = tool as ToolDefinition & { blocking?: boolean };
  const label = `transformTool("${String(original.name)}")`;
  const fail = (message: string): never => {
    throw new TypeError(`${label}: ${message}`);
  };
  for (const key of Object.keys(transform)) {
    if (!TRANSFORM_KEYS.has(key)) fail(`unknown option "${key}"; known: ${[...TRANSFORM_KEYS].join(', ')}`);
  }
  if (original.blocking)
    fail(
      'a blocking tool runs from its module in a worker and cannot be transformed; wrap it in an inline tool',
    );
  if (typeof original.handler !== 'function') fail('the tool has no handler to forward to');
  const schema = original.inputSchema as {
    type?: unknown;
    properties?: Record<string, object>;
    required?: string[];
  };
  if (typeof schema !== 'object' || schema === null || '~standard' in schema) {
    fail('only a JSON Schema inputSchema can be transformed (its properties are renamed and hidden)');
  }
  const properties = { ...(schema.properties ?? {}) };
  const required = new Set(schema.required ?? []);
  const toOriginal = new Map<string, string>();
  const fixed: Args = {};
  const defaults: Args = {};
  for (const [name, change] of Object.entries(transform.args ?? {})) {
    for (const key of Object.keys(change)) {
      if (!ARGUMENT_KEYS.has(key))
        fail(`args.${name}: unknown option "${key}"; known: ${[...ARGUMENT_KEYS].join(', ')}`);
    }
    if (!(name in properties)) fail(`args.${name}: the tool has no argument "${name}"`);
  }
  const published: Record<string, object> = {};
  const publishedRequired: string[] = [];
  for (const [name, property] of Object.entries(properties)) {
    const change = transform.args?.[name] ?? {};
    const hasDefault = 'default' in change;
    if (change.hide) {
      if (!hasDefault) fail(`args.${name}: a hidden argument needs a default, since no caller can send it`);
      fixed[name] = change.default;
      continue;
    }
    const newName = change.rename ?? name;
    if (newName in published)
      fail(`args.${name}: the name "${newName}" is already taken by another argument`);
    toOriginal.set(newName, name);
    const next: Record<string, unknown> = { ...property };
    if (change.description !== undefined) next.description = change.description;
    if (hasDefault) {
      next.default = change.default;
      defaults[name] = change.default;
    }
    published[newName] = next;
    if (required.has(name) && !hasDefault) publishedRequired.push(newName);
  }
  const originalHandler = original.handler as (args: Args, ctx: ToolContext) => unknown;
  const forwardWith = (ctx: ToolContext) => async (args: Args) => {
    const mapped: Args = { ...defaults };
    for (const [name, value] of Object.entries(args ?? {})) mapped[toOriginal.get(name) ?? name] = value;
    Object.assign(mapped, fixed);
    return originalHandler(mapped, ctx);
  };
  const { handler: custom } = transform;
  const derived: Record<string, unknown> = {
    ...original,
    name: transform.name ?? original.name,
    inputSchema: { ...schema, properties: published, required: publishedRequired },
    handler: custom
      ? (args: Args, ctx: ToolContext) => custom(args, ctx, forwardWith(ctx))
      : (args: Args, ctx: ToolContext) => forwardWith(ctx)(args),
  };
  if (publishedRequired.length === 0) delete (derived.inputSchema as Args).required;
  for (const key of ['title', 'description', 'tags'] as const) {
    if (transform[key] !== undefined) derived[key] = transform[key];
  }
  return derived as unknown as ToolDefinition<never, never>;
}
