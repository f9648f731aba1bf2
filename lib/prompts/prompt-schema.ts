/**
 * Prompt arguments declared with a Standard Schema (zod 4...): `z.object({ topic: z.string(), ... })`
 * instead of a list of `{ name, required }`. The schema's JSON Schema gives the published argument
 * list (names, descriptions, which are required); its own `validate` checks what a client sends, and
 * `get` receives its output. Prompt arguments are strings on the wire, so every property must be one.
 */
import type { InferOutput, StandardSchemaV1 } from '../tools/standard-schema.js';
import { publishedJsonSchema, standardCheck, type ValueCheck } from '../tools/standard-schema-check.js';
import type { PromptArgument, PromptContext, PromptDefinition, PromptReturn } from './prompt-definition.js';

/** A prompt whose `arguments` is a Standard Schema; `get` receives the schema's output. */
export interface SchemaPromptDefinition<S extends StandardSchemaV1>
  extends Omit<PromptDefinition, 'arguments' | 'get'> {
  arguments: S;
  get(args: InferOutput<S>, ctx: PromptContext): PromptReturn | Promise<PromptReturn>;
}

export interface SchemaPromptArguments {
  /** What `prompts/list` publishes for the schema. */
  readonly arguments: PromptArgument[];
  readonly check: ValueCheck;
}

/** The published arguments and the check of a schema; a schema that cannot be one throws, saying why. */
export function promptArgumentsFromSchema(schema: StandardSchemaV1, where: string): SchemaPromptArguments {
  const fail = (message: string): never => {
    throw new TypeError(`${where}: ${message}`);
  };
  const published = publishedJsonSchema(schema, 'input', 'arguments', fail);
  const properties = (published.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set(Array.isArray(published.required) ? (published.required as string[]) : []);
  const promptArguments = Object.entries(properties).map(([name, property]) => {
    if (property.type !== 'string') {
      fail(
        `argument "${name}" must be a string (prompt arguments are strings on the wire); ` +
          'parse it inside the schema, for example z.string().transform(Number)',
      );
    }
    const argument: PromptArgument = { name };
    if (typeof property.title === 'string') argument.title = property.title;
    if (typeof property.description === 'string') argument.description = property.description;
    if (required.has(name)) argument.required = true;
    return argument;
  });
  return { arguments: promptArguments, check: standardCheck(schema) };
}
