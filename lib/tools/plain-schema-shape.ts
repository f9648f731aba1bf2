/**
 * Whether a JSON Schema is plainly valid against the 2020-12 meta-schema, decided without Ajv: the
 * schemas tools declare are nearly always made of a few keywords (type, properties, required,
 * items, enum, bounds, descriptions), and checking those by hand is what lets a server start
 * without compiling the meta-schema (about 70 ms of CPU at every start). Anything not plainly
 * valid, or using a keyword this file does not decide (references, anchors, dynamic
 * scope, format bounds...), answers false, and the caller asks Ajv's full meta-schema validation,
 * so no schema is ever accepted here that Ajv would refuse.
 */

const SIMPLE_TYPES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);

type Rule = (value: unknown) => boolean;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isString: Rule = (value) => typeof value === 'string';
const isBoolean: Rule = (value) => typeof value === 'boolean';
const isNumber: Rule = (value) => typeof value === 'number' && Number.isFinite(value);
const isCount: Rule = (value) => Number.isInteger(value) && (value as number) >= 0;
const anything: Rule = () => true;
const isSchema: Rule = (value) => plainSchema(value);
const schemaMap: Rule = (value) => isObject(value) && Object.values(value).every(plainSchema);
const schemaList: Rule = (value) => Array.isArray(value) && value.length > 0 && value.every(plainSchema);
const isType: Rule = (value) =>
  typeof value === 'string'
    ? SIMPLE_TYPES.has(value)
    : Array.isArray(value) &&
      value.length > 0 &&
      value.every((type) => typeof type === 'string' && SIMPLE_TYPES.has(type)) &&
      new Set(value).size === value.length;
/** Stricter than the meta-schema's `format: regex` (a \\Z anywhere is left to Ajv). */
const isPattern: Rule = (value) => {
  if (typeof value !== 'string' || value.includes('\\Z')) return false;
  try {
    new RegExp(value, 'u');
    return true;
  } catch {
    return false;
  }
};
const uniqueStrings: Rule = (value) =>
  Array.isArray(value) && value.every(isString) && new Set(value).size === value.length;

/** The keywords decided here, with what the meta-schema requires of their values. */
const RULES: ReadonlyMap<string, Rule> = new Map<string, Rule>([
  ['type', isType],
  ['properties', schemaMap],
  ['$defs', schemaMap],
  ['dependentSchemas', schemaMap],
  ['required', uniqueStrings],
  ['additionalProperties', isSchema],
  ['unevaluatedProperties', isSchema],
  ['unevaluatedItems', isSchema],
  ['propertyNames', isSchema],
  ['items', isSchema],
  ['contains', isSchema],
  ['not', isSchema],
  ['if', isSchema],
  ['then', isSchema],
  ['else', isSchema],
  ['prefixItems', schemaList],
  ['allOf', schemaList],
  ['anyOf', schemaList],
  ['oneOf', schemaList],
  ['enum', Array.isArray],
  ['const', anything],
  ['default', anything],
  ['examples', Array.isArray],
  ['title', isString],
  ['description', isString],
  ['$comment', isString],
  ['format', isString],
  ['pattern', isPattern],
  ['deprecated', isBoolean],
  ['readOnly', isBoolean],
  ['writeOnly', isBoolean],
  ['uniqueItems', isBoolean],
  ['minimum', isNumber],
  ['maximum', isNumber],
  ['exclusiveMinimum', isNumber],
  ['exclusiveMaximum', isNumber],
  ['multipleOf', (value) => isNumber(value) && (value as number) > 0],
  ['minLength', isCount],
  ['maxLength', isCount],
  ['minItems', isCount],
  ['maxItems', isCount],
  ['minProperties', isCount],
  ['maxProperties', isCount],
  ['minContains', isCount],
  ['maxContains', isCount],
]);

/**
 * Keywords the meta-schema (or ajv-formats, or Ajv itself) gives a meaning this file does not
 * decide: their presence sends the schema to Ajv. Any other unknown keyword is an annotation the
 * meta-schema allows with any value (`x-mcp-header`, vendor keys).
 */
const UNDECIDED = new Set([
  '$schema',
  '$id',
  '$ref',
  '$anchor',
  '$dynamicRef',
  '$dynamicAnchor',
  '$recursiveRef',
  '$recursiveAnchor',
  '$vocabulary',
  'definitions',
  'dependencies',
  'dependentRequired',
  'patternProperties',
  'additionalItems',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
  'formatMinimum',
  'formatMaximum',
  'formatExclusiveMinimum',
  'formatExclusiveMaximum',
  'discriminator',
  'nullable',
]);

/** True only when `schema` is certainly valid against the 2020-12 meta-schema. */
export function plainSchema(schema: unknown): boolean {
  if (typeof schema === 'boolean') return true;
  if (!isObject(schema)) return false;
  for (const key in schema) {
    if (!Object.hasOwn(schema, key)) continue;
    if (UNDECIDED.has(key)) return false;
    const rule = RULES.get(key);
    if (rule && !rule(schema[key])) return false;
  }
  return true;
}
