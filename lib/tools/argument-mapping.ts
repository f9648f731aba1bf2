/**
 * The argument half of a tool transformation: from an original input schema and the changes asked
 * for (`rename`, `description`, `default`, `hide` per argument), the schema to publish and the
 * mapping that turns a call's published arguments back into the original's.
 *
 * Local tools (transform-tool.ts) and mounted ones (gateway/mounted-transform.ts) derive through
 * this one file, so a rename means the same thing wherever the original runs. The mapping is the
 * exact inverse of the derivation: every published name goes back to one original name, a hidden
 * argument always takes its default, and an original name the transformation withdrew (renamed
 * away or hidden) is refused rather than let through under the old name, since that would let a
 * caller set what the published schema says cannot be set.
 */
import type { Checked } from './standard-schema-check.js';

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

/** Maps a call's published arguments to the original's, or says what is wrong with them. */
export type ArgumentMap = (args: Args) => Checked;

export interface DerivedArguments {
  /** The input schema to publish: the original's, with the arguments changed as asked. */
  readonly inputSchema: Record<string, unknown>;
  readonly map: ArgumentMap;
}

const ARGUMENT_KEYS = new Set(['rename', 'description', 'default', 'hide']);
const ARGUMENT_NAME = /^[^\s]{1,128}$/;

/**
 * The checks that need no schema: the option keys, a hidden argument's default, a rename's
 * spelling. Run where a transformation is given (a mount runs them before it knows the upstream's
 * schemas, so a mistake fails `server.mount` itself).
 */
export function checkArgumentTransforms(args: unknown, fail: (message: string) => never): void {
  if (args === undefined) return;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    fail('args must be an object keyed by the original argument names');
  }
  for (const [name, change] of Object.entries(args as Record<string, unknown>)) {
    if (typeof change !== 'object' || change === null || Array.isArray(change)) {
      fail(`args.${name} must be an object of { rename?, description?, default?, hide? }`);
    }
    const { rename, description, hide } = change as ArgumentTransform;
    for (const key of Object.keys(change as object)) {
      if (!ARGUMENT_KEYS.has(key))
        fail(`args.${name}: unknown option "${key}"; known: ${[...ARGUMENT_KEYS].join(', ')}`);
    }
    if (rename !== undefined && (typeof rename !== 'string' || !ARGUMENT_NAME.test(rename))) {
      fail(`args.${name}.rename must be a non-empty name without spaces, got ${JSON.stringify(rename)}`);
    }
    if (description !== undefined && typeof description !== 'string') {
      fail(`args.${name}.description must be a string`);
    }
    if (hide !== undefined && typeof hide !== 'boolean') fail(`args.${name}.hide must be true or false`);
    if (hide === true && !('default' in (change as object))) {
      fail(
        `args.${name}: a hidden argument needs a default, since no caller can send it; add default: <value> or remove hide`,
      );
    }
    if (hide === true && rename !== undefined) fail(`args.${name}: a hidden argument cannot be renamed`);
  }
}

/** Derives the published schema and the inverse mapping; `fail` names what cannot be derived. */
export function deriveArguments(
  inputSchema: unknown,
  changes: Readonly<Record<string, ArgumentTransform>> | undefined,
  fail: (message: string) => never,
): DerivedArguments {
  checkArgumentTransforms(changes, fail);
  if (typeof inputSchema !== 'object' || inputSchema === null || '~standard' in inputSchema) {
    fail('only a JSON Schema inputSchema can be transformed (its properties are renamed and hidden)');
  }
  const schema = inputSchema as { properties?: Record<string, object>; required?: unknown };
  const properties = schema.properties ?? {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  for (const name of Object.keys(changes ?? {})) {
    if (!Object.hasOwn(properties, name)) {
      const known = Object.keys(properties);
      fail(
        `args.${name}: the tool has no argument "${name}" (its arguments: ${known.length > 0 ? known.join(', ') : 'none'})`,
      );
    }
  }

  const published: Record<string, object> = {};
  const publishedRequired: string[] = [];
  /** published name -> original name */
  const toOriginal = new Map<string, string>();
  /** original name -> the value it takes when the caller leaves it out */
  const defaults: Args = {};
  /** original name -> the value it always takes (hidden) */
  const fixed: Args = {};
  for (const [name, property] of Object.entries(properties)) {
    const change = changes?.[name] ?? {};
    const hasDefault = 'default' in change;
    if (change.hide) {
      fixed[name] = change.default;
      continue;
    }
    const newName = change.rename ?? name;
    if (Object.hasOwn(published, newName)) {
      fail(`args.${name}: the name "${newName}" is already taken by another argument`);
    }
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
  // An original name no published name stands for any more: renamed away, or hidden.
  const withdrawn = new Map<string, string>();
  for (const name of Object.keys(properties)) {
    if (toOriginal.has(name)) continue;
    const change = changes?.[name];
    withdrawn.set(name, change?.hide ? 'it cannot be set' : `it is called "${change?.rename}" now`);
  }

  const derived: Record<string, unknown> = { ...schema, properties: published };
  if (publishedRequired.length > 0) derived.required = publishedRequired;
  else delete derived.required;

  const map: ArgumentMap = (args) => {
    const mapped: Args = { ...defaults };
    for (const [name, value] of Object.entries(args ?? {})) {
      const original = toOriginal.get(name);
      if (original !== undefined) {
        mapped[original] = value;
        continue;
      }
      const why = withdrawn.get(name);
      if (why !== undefined) return { ok: false, problem: `unknown argument "${name}" (${why})` };
      // Not an argument of the schema at all: the original's own rules decide (additionalProperties).
      mapped[name] = value;
    }
    Object.assign(mapped, fixed);
    return { ok: true, value: mapped };
  };
  return { inputSchema: derived, map };
}

/** `first`, then `then` on what it produced: a transformation of a transformed tool. */
export function composeMaps(first: ArgumentMap, then: ArgumentMap | undefined): ArgumentMap {
  if (then === undefined) return first;
  return (args) => {
    const mapped = first(args);
    return mapped.ok ? then(mapped.value as Args) : mapped;
  };
}
