/**
 * Compiles JSON Schemas (2020-12 by default) once, at registration, into validators.
 *
 * One Ajv instance serves the whole server so that compiled code is shared and cached by schema
 * identity. Ajv is strict about unknown keywords by default; MCP schemas legitimately carry
 * annotations of their own (`x-mcp-header`, vendor keys), so unknown keywords are allowed while
 * everything else stays strict enough to refuse a schema that cannot mean what it says.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { plainSchema } from './plain-schema-shape.js';

// ajv-formats is CommonJS; under NodeNext its default import is the module object on some setups.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;

export type Validator = (value: unknown) => string | undefined;

export class SchemaCompiler {
  readonly #ajv: Ajv2020;

  constructor() {
    this.#ajv = new Ajv2020({
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
    addFormats(this.#ajv);
  }

  /**
   * Returns a validator that yields undefined for a valid value, or a sentence naming the problem.
   * Throws with Ajv's explanation when the schema itself is invalid.
   */
  compile(schema: object): Validator {
    let validate: ValidateFunction;
    try {
      if (!plainSchema(schema) && !this.#ajv.validateSchema(schema)) {
        throw new Error(`schema is invalid: ${this.#ajv.errorsText()}`);
      }
      validate = this.#ajv.compile(schema);
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
