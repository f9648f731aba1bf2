/**
 * Compiles JSON Schemas (2020-12 by default) into validators.
 *
 * One Ajv instance serves the whole server so that compiled code is shared and cached by schema
 * identity. Ajv is strict about unknown keywords by default; MCP schemas legitimately carry
 * annotations of their own (`x-mcp-header`, vendor keys), so unknown keywords are allowed while
 * everything else stays strict enough to refuse a schema that cannot mean what it says.
 *
 * Start-up pays for none of it when every schema is plainly valid (plain-schema-shape.ts, what
 * tools nearly always declare): Ajv (about 80 CommonJS files) is loaded at the first schema that
 * needs it, and a plainly valid schema is compiled at its first use, so a server answers
 * `initialize` without loading or running Ajv, and a tool never called costs nothing. A schema
 * that is not plainly valid is still checked against the meta-schema and compiled at
 * registration, so an invalid one is refused there with Ajv's explanation.
 */
import { createRequire } from 'node:module';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { plainSchema } from './plain-schema-shape.js';

// require(), not import: loading Ajv waits for the first schema compiled, and must stay synchronous.
const require = createRequire(import.meta.url);

function newAjv(): Ajv2020 {
  const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  // ajv-formats is CommonJS with its function as `default` beside the module object.
  const formats = require('ajv-formats') as { default?: unknown };
  const addFormats = (formats.default ?? formats) as (ajv: Ajv2020) => Ajv2020;
  const ajv = new Ajv({
    strict: false,
    // Checked in compile(): by hand when plainly valid, else against the meta-schema, so that
    // the meta-schema is compiled only by servers whose schemas need it.
    validateSchema: false,
    allErrors: false,
    validateFormats: true,
    // Arguments are validated exactly as sent: no coercion, no defaults written into them.
    coerceTypes: false,
    useDefaults: false,
  });
  addFormats(ajv);
  return ajv;
}

export type Validator = (value: unknown) => string | undefined;

export class SchemaCompiler {
  #ajv: Ajv2020 | undefined;

  get #loaded(): Ajv2020 {
    this.#ajv ??= newAjv();
    return this.#ajv;
  }

  /**
   * Returns a validator that yields undefined for a valid value, or a sentence naming the problem.
   * Throws with Ajv's explanation when the schema itself is invalid (see the module comment for
   * when that is decided).
   */
  compile(schema: object): Validator {
    if (plainSchema(schema)) {
      let validate: ValidateFunction | undefined;
      return (value) => {
        validate ??= this.#loaded.compile(schema);
        return validate(value) ? undefined : describeErrors(validate.errors);
      };
    }
    let validate: ValidateFunction;
    try {
      if (!this.#loaded.validateSchema(schema)) {
        throw new Error(`schema is invalid: ${this.#loaded.errorsText()}`);
      }
      validate = this.#loaded.compile(schema);
    } catch (error) {
      throw new Error((error as Error).message);
    }
    return (value) => (validate(value) ? undefined : describeErrors(validate.errors));
  }
}

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  const first = errors?.[0];
  if (!first) return 'the value does not match the schema';
  const where =
    first.instancePath === '' ? 'the arguments' : `"${first.instancePath.slice(1).replaceAll('/', '.')}"`;
  switch (first.keyword) {
    case 'required':
      return `missing required property "${(first.params as { missingProperty: string }).missingProperty}"`;
    case 'additionalProperties':
      return `unexpected property "${(first.params as { additionalProperty: string }).additionalProperty}" in ${where}`;
    case 'type':
      return `${where} must be of type ${(first.params as { type: string }).type}`;
    default:
      return `${where} ${first.message ?? 'is invalid'}`;
  }
}
