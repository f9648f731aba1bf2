/**
 * `x-mcp-header` annotations are checked when a tool registers: a bad one refuses the tool with a
 * message that says what to fix; good ones are found with their argument paths and published as
 * written.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpServer, ToolRegistrationError } from '../../lib/index.js';
import { SchemaCompiler } from '../../lib/tools/schema-compiler.js';
import { ToolRegistry } from '../../lib/tools/tool-registry.js';

const register = (inputSchema: object) =>
  new ToolRegistry(new SchemaCompiler()).add({
    name: 'mirror',
    inputSchema: inputSchema as never,
    handler: () => 'ok',
  } as never);

const refused = (inputSchema: object, pattern: RegExp) =>
  assert.throws(
    () => register(inputSchema),
    (error: Error) => error instanceof ToolRegistrationError && pattern.test(error.message),
  );

describe('x-mcp-header registration check', () => {
  it('finds every annotated argument with its path and type, nested objects included', () => {
    const tool = register({
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        query: { type: 'string' },
        limits: {
          type: 'object',
          properties: {
            rows: { type: 'integer', 'x-mcp-header': 'Max-Rows' },
            dry: { type: 'boolean', 'x-mcp-header': 'Dry_Run' },
          },
        },
      },
    });
    assert.deepEqual(tool.headerParams, [
      { name: 'Region', path: ['region'], type: 'string' },
      { name: 'Max-Rows', path: ['limits', 'rows'], type: 'integer' },
      { name: 'Dry_Run', path: ['limits', 'dry'], type: 'boolean' },
    ]);
  });

  it('a tool without annotations mirrors nothing', () => {
    assert.deepEqual(register({ type: 'object', properties: { a: { type: 'string' } } }).headerParams, []);
  });

  it('refuses true instead of a name, with a hint showing the right form', () => {
    refused(
      { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': true } } },
      /"x-mcp-header": "Region"/,
    );
  });

  it('refuses empty names, non-strings and names that are not RFC 9110 tokens', () => {
    for (const name of ['', 42, null]) {
      refused(
        { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': name } } },
        /must be a non-empty header name/,
      );
    }
    for (const name of ['Has Space', 'Colon:Name', 'Line\nBreak', 'Ünicode', 'Paren(s)']) {
      refused(
        { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': name } } },
        /not a valid header name/,
      );
    }
  });

  it('refuses two annotations with the same name ignoring case', () => {
    refused(
      {
        type: 'object',
        properties: {
          a: { type: 'string', 'x-mcp-header': 'Region' },
          b: { type: 'object', properties: { c: { type: 'string', 'x-mcp-header': 'REGION' } } },
        },
      },
      /repeats the header of \(root\)\.properties\.a/,
    );
  });

  it('refuses number, object, array, untyped and multi-typed properties', () => {
    refused(
      { type: 'object', properties: { a: { type: 'number', 'x-mcp-header': 'A' } } },
      /use type "integer"/,
    );
    for (const type of ['object', 'array', undefined, ['string', 'null']]) {
      refused(
        { type: 'object', properties: { a: { type, 'x-mcp-header': 'A' } } },
        /only allowed on a property of type "string", "integer" or "boolean"/,
      );
    }
  });

  it('refuses annotations not reachable through properties alone', () => {
    const annotated = { type: 'string', 'x-mcp-header': 'A' };
    const placements: object[] = [
      { type: 'object', 'x-mcp-header': 'Root' },
      { type: 'object', properties: { list: { type: 'array', items: annotated } } },
      { type: 'object', properties: { list: { type: 'array', prefixItems: [annotated] } } },
      { type: 'object', anyOf: [{ properties: { a: annotated } }] },
      { type: 'object', properties: { a: { oneOf: [annotated] } } },
      { type: 'object', allOf: [{ properties: { a: annotated } }] },
      { type: 'object', properties: { a: { not: annotated } } },
      // Written as JSON: a literal with a "then" key reads as a thenable to the linter.
      JSON.parse(
        '{"type":"object","if":{"properties":{"a":{"type":"string","x-mcp-header":"A"}}},"then":{}}',
      ),
      JSON.parse('{"type":"object","then":{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}}'),
      { type: 'object', $defs: { a: annotated }, properties: { a: { $ref: '#/$defs/a' } } },
      { type: 'object', additionalProperties: annotated },
      { type: 'object', patternProperties: { '^x': annotated } },
    ];
    for (const schema of placements) {
      refused(schema, /reached from the root through "properties" alone/);
    }
  });

  it('publishes the schema verbatim in tools/list, annotations included', async () => {
    const inputSchema = {
      type: 'object',
      properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
      required: ['region'],
    } as const;
    const server = new McpServer({ name: 't', version: '1' }).tool({
      name: 'where',
      inputSchema,
      handler: ({ region }) => region,
    });
    const replies: unknown[] = [];
    const connection = server.connect({ send: (message) => replies.push(message) });
    await connection.receive({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    connection.close();
    const listed = (replies[0] as { result: { tools: { inputSchema: unknown }[] } }).result.tools[0]!;
    assert.deepEqual(listed.inputSchema, inputSchema);
    await server.close();
  });
});
