/**
 * How a Standard Schema (zod 4, valibot, ArkType...) becomes what weft needs from a schema: the
 * JSON Schema that `tools/list` publishes, taken from the library's own Standard JSON Schema
 * converter, and a check that runs the library's own `validate`, so its messages reach the model
 * and its output (defaults, transforms applied) reaches the handler.
 *
 * weft imports no schema library: everything goes through the `~standard` interface the user's
 * library provides. A plain JSON Schema never comes here (schema-compiler.ts checks those).
 */
import type { StandardIssue, StandardJsonSchemaConverter, StandardSchemaV1 } from './standard-schema.js';

/** What a check of a value says: the value to use (the schema's output), or what is wrong. */
export type Checked =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problem: string };

/** A check that may be asynchronous (a schema with async refinements validates asynchronously). */
export type ValueCheck = (value: unknown) => Checked | Promise<Checked>;

/** The JSON Schema dialect weft publishes (MCP's default). */
const TARGET = 'draft-2020-12';

/** True for any object (or callable, as ArkType's are) that carries a v1 `~standard` with `validate`. */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const standard = (value as { '~standard'?: unknown })['~standard'];
  return (
    typeof standard === 'object' &&
    standard !== null &&
    (standard as { version?: unknown }).version === 1 &&
    typeof (standard as { validate?: unknown }).validate === 'function'
  );
}

/**
 * The JSON Schema of what the schema accepts (`io: 'input'`, for arguments) or hands back
 * (`io: 'output'`, for results), with an object at its root. Anything else is refused through
 * `fail`, with a sentence saying what to change.
 */
export function publishedJsonSchema(
  schema: StandardSchemaV1,
  io: 'input' | 'output',
  field: string,
  fail: (message: string) => never,
): Record<string, unknown> {
  const standard = schema['~standard'];
  const converter = (standard as { jsonSchema?: StandardJsonSchemaConverter }).jsonSchema;
  if (typeof converter?.[io] !== 'function') {
    fail(
      `${field} is a ${standard.vendor} schema that cannot give a JSON Schema (it does not implement ` +
        'Standard JSON Schema, `~standard.jsonSchema`); use zod 4.2 or later, a library that converts, ' +
        'or write the JSON Schema itself',
    );
  }
  let converted: unknown;
  try {
    converted = converter[io]({ target: TARGET });
  } catch (error) {
    fail(
      `${field} does not convert to JSON Schema 2020-12 (${(error as Error)?.message ?? String(error)}); ` +
        'use only types JSON can carry (no dates, maps, functions...), or write the JSON Schema itself',
    );
  }
  if (typeof converted !== 'object' || converted === null || Array.isArray(converted)) {
    fail(
      `${field}: the ${standard.vendor} schema converted to ${JSON.stringify(converted)}, not a JSON Schema object`,
    );
  }
  if ((converted as { type?: unknown }).type !== 'object') {
    fail(
      `${field} must describe an object at its root (for zod: z.object({...})); ` +
        `this one converts to type ${JSON.stringify((converted as { type?: unknown }).type)}`,
    );
  }
  return converted as Record<string, unknown>;
}

/** A check that runs the schema's own `validate`, synchronously when the schema allows it. */
export function standardCheck(schema: StandardSchemaV1): ValueCheck {
  const validate = schema['~standard'].validate;
  return (value) => {
    let result: ReturnType<typeof validate>;
    try {
      result = validate(value);
    } catch (error) {
      return {
        ok: false,
        problem: `the schema's validation threw: ${(error as Error)?.message ?? String(error)}`,
      };
    }
    if (result instanceof Promise) {
      return result.then(toChecked, (error: unknown) => ({
        ok: false as const,
        problem: `the schema's validation threw: ${(error as Error)?.message ?? String(error)}`,
      }));
    }
    return toChecked(result);
  };
}

function toChecked(result: Awaited<ReturnType<StandardSchemaV1['~standard']['validate']>>): Checked {
  if (result.issues) return { ok: false, problem: describeIssues(result.issues) };
  return { ok: true, value: result.value };
}

/** The issues as one sentence: each with the path it is about (`"items.2.name": ...`). */
export function describeIssues(issues: readonly StandardIssue[]): string {
  if (issues.length === 0) return 'the value does not match the schema';
  const shown = issues.slice(0, 5).map((issue) => {
    const path = (issue.path ?? []).map((segment) =>
      String(typeof segment === 'object' && segment !== null ? segment.key : segment),
    );
    return path.length === 0 ? issue.message : `"${path.join('.')}": ${issue.message}`;
  });
  const more = issues.length > shown.length ? ` (and ${issues.length - shown.length} more)` : '';
  return shown.join('; ') + more;
}
