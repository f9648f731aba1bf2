/**
 * One way in for both kinds of schema a tool (or prompt) may declare: a JSON Schema object, compiled
 * by Ajv and published as written, or a Standard Schema (zod 4...), converted by its own library
 * for publishing and validated by its own `validate`. Either way the result is the JSON Schema to
 * publish and a check that says what value the handler gets, so nothing downstream asks which kind
 * it was.
 */
import type { SchemaCompiler } from './schema-compiler.js';
import {
  type Checked,
  isStandardSchema,
  publishedJsonSchema,
  standardCheck,
  type ValueCheck,
} from './standard-schema-check.js';

export interface CompiledSchema {
  /** What `tools/list` (or `prompts/list`) publishes: a JSON Schema 2020-12 object. */
  readonly published: Record<string, unknown>;
  readonly check: ValueCheck;
}

/**
 * Compiles `schema` for `field` (`inputSchema`, `outputSchema`...). `io` says which side of a
 * Standard Schema is published: what it accepts (`input`, for arguments) or what it hands back
 * (`output`, for results). Mistakes are refused through `fail`.
 */
export function compileToolSchema(
  compiler: SchemaCompiler,
  schema: unknown,
  field: string,
  io: 'input' | 'output',
  fail: (message: string) => never,
): CompiledSchema {
  if (isStandardSchema(schema)) {
    return { published: publishedJsonSchema(schema, io, field, fail), check: standardCheck(schema) };
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    fail(
      `${field} must be a JSON Schema object such as { type: 'object', properties: {...} }, ` +
        'or a Standard Schema such as z.object({...})',
    );
  }
  if ((schema as { type?: unknown }).type !== 'object') {
    fail(`${field} must describe an object: set type: 'object' at its top level`);
  }
  let validate: (value: unknown) => string | undefined;
  try {
    validate = compiler.compile(schema as object);
  } catch (error) {
    return fail(`${field} does not compile as JSON Schema 2020-12: ${(error as Error).message}`);
  }
  return {
    published: schema as Record<string, unknown>,
    // A JSON Schema never changes the value: what was sent is what the handler gets.
    check: (value) => {
      const problem = validate(value);
      return problem === undefined ? { ok: true, value } : { ok: false, problem };
    },
  };
}

/**
 * The check for a place that cannot wait (a result is shaped synchronously): a schema that
 * validates asynchronously is reported as a problem that says so, rather than passed unchecked.
 */
export function synchronousCheck(check: ValueCheck, field: string): (value: unknown) => Checked {
  return (value) => {
    const checked = check(value);
    if (!(checked instanceof Promise)) return checked;
    return {
      ok: false,
      problem:
        `its ${field} validates asynchronously (an async refinement or transform), and weft checks ` +
        `a ${field} synchronously; make that schema synchronous`,
    };
  };
}
