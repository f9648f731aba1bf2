/**
 * The rules for `x-mcp-header` annotations in a tool's input schema, for both sides: the server
 * refuses such a tool when it registers (lib/tools), a client drops it from its listing (lib/client).
 *
 * HTTP clients drop a tool whose annotations break the spec's rules, so a server that published one
 * would offer a tool nobody can call. The rules, checked here once per tool: a
 * non-empty RFC 9110 token, unique within the tool ignoring case, only on a `string`, `integer` or
 * `boolean` property, and only where the property is reachable from the root through `properties`
 * keys alone. The walk visits every subschema keyword, so an annotation under `items`, `anyOf`,
 * `if`, `$defs` and the like is found and refused instead of silently ignored.
 */
import {
  type HeaderParam,
  type HeaderParamType,
  isHeaderToken,
  PARAM_HEADER_PREFIX,
  X_MCP_HEADER,
} from './mcp-param-headers.js';

const PERMITTED_TYPES: ReadonlySet<string> = new Set<HeaderParamType>(['string', 'integer', 'boolean']);

/** Keywords whose value is one subschema or an array of them; none is on a `properties` chain. */
const SUBSCHEMA_KEYWORDS = [
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'contentSchema',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
] as const;

/** Keywords whose value maps names to subschemas; none is on a `properties` chain either. */
const SUBSCHEMA_MAP_KEYWORDS = ['patternProperties', 'dependentSchemas', '$defs', 'definitions'] as const;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The arguments `inputSchema` mirrors into headers, in schema order. Calls `fail` with a sentence
 * that says what to fix when an annotation is invalid (one bad annotation refuses the whole tool).
 */
export function findHeaderParams(inputSchema: object, fail: (message: string) => never): HeaderParam[] {
  const found: HeaderParam[] = [];
  const byLowerName = new Map<string, string>();

  const visit = (schema: unknown, path: string[], reachable: boolean, where: string): void => {
    if (!isObject(schema)) return;
    if (X_MCP_HEADER in schema) {
      const param = checkAnnotation(schema, path, reachable, where, fail);
      const lower = param.name.toLowerCase();
      const earlier = byLowerName.get(lower);
      if (earlier !== undefined) {
        fail(
          `inputSchema ${where}: "x-mcp-header": "${param.name}" repeats the header of ${earlier} ` +
            '(names are compared ignoring case); give each mirrored argument its own name',
        );
      }
      byLowerName.set(lower, `${where} ("${param.name}")`);
      found.push(param);
    }
    const properties = schema.properties;
    if (isObject(properties)) {
      for (const [key, child] of Object.entries(properties)) {
        visit(child, [...path, key], reachable, `${where}.properties.${key}`);
      }
    }
    for (const keyword of SUBSCHEMA_KEYWORDS) {
      const value = schema[keyword];
      if (Array.isArray(value)) {
        value.forEach((child, index) => {
          visit(child, path, false, `${where}.${keyword}[${index}]`);
        });
      } else {
        visit(value, path, false, `${where}.${keyword}`);
      }
    }
    for (const keyword of SUBSCHEMA_MAP_KEYWORDS) {
      const value = schema[keyword];
      if (!isObject(value)) continue;
      for (const [key, child] of Object.entries(value)) {
        visit(child, path, false, `${where}.${keyword}.${key}`);
      }
    }
  };

  visit(inputSchema, [], true, '(root)');
  return found;
}

function checkAnnotation(
  schema: Record<string, unknown>,
  path: string[],
  reachable: boolean,
  where: string,
  fail: (message: string) => never,
): HeaderParam {
  const name = schema[X_MCP_HEADER];
  const at = `inputSchema ${where}`;
  if (name === true) {
    fail(
      `${at}: "x-mcp-header" names the header, it is not a flag; write the name, for example "x-mcp-header": "Region" (sent as ${PARAM_HEADER_PREFIX}Region)`,
    );
  }
  if (typeof name !== 'string' || name === '') {
    fail(
      `${at}: "x-mcp-header" must be a non-empty header name, for example "x-mcp-header": "Region"; got ${JSON.stringify(name)}`,
    );
  }
  if (!isHeaderToken(name)) {
    fail(
      `${at}: "x-mcp-header": ${JSON.stringify(name)} is not a valid header name; use letters, digits and ` +
        "!#$%&'*+-.^_`|~ only (an RFC 9110 token: no spaces, colons or control characters)",
    );
  }
  if (!reachable || path.length === 0) {
    fail(
      `${at}: "x-mcp-header" may only annotate a property reached from the root through "properties" alone ` +
        '(not under items, anyOf/oneOf/allOf/not, if/then/else, $defs or $ref, nor on the root itself); move it onto such a property or remove it',
    );
  }
  const type = schema.type;
  if (typeof type !== 'string' || !PERMITTED_TYPES.has(type)) {
    const hint =
      type === 'number'
        ? '; a "number" cannot be mirrored, use type "integer" if whole numbers suffice'
        : '; give the property exactly one of these types';
    fail(
      `${at}: "x-mcp-header" is only allowed on a property of type "string", "integer" or "boolean", ` +
        `this one has type ${JSON.stringify(type)}${hint}`,
    );
  }
  return { name, path, type: type as HeaderParamType };
}
