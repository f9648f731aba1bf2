/**
 * transformTool: the derived tool publishes the renamed, described, defaulted and hidden arguments
 * and reaches the original handler with the original names; a custom handler forwards; mistakes
 * (a hidden argument without a default, an unknown argument, a Standard Schema) are refused when
 * the tool is made. Blocking tools: transform-blocking.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect, type McpClient } from '../../lib/client/index.js';
import { McpServer, transformTool } from '../../lib/index.js';
import { defineTool } from '../../lib/tool.js';

const search = defineTool({
  name: 'search',
  description: 'Searches',
  inputSchema: {
    type: 'object',
    properties: { q: { type: 'string' }, limit: { type: 'integer' }, index: { type: 'string' } },
    required: ['q', 'index'],
    additionalProperties: false,
  },
  handler: ({ q, limit, index }) => `q=${q} limit=${limit ?? '-'} index=${index}`,
});

describe('transformTool', () => {
  let server: McpServer;
  let client: McpClient;
  before(async () => {
    server = new McpServer({ name: 't', version: '0.0.0' });
    server.tool(search);
    server.tool(
      transformTool(search, {
        name: 'find',
        description: 'Finds documents',
        args: {
          q: { rename: 'query', description: 'What to look for' },
          limit: { default: 5 },
          index: { hide: true, default: 'docs' },
        },
      }) as never,
    );
    server.tool(
      transformTool(search, {
        name: 'find_twice',
        args: { index: { hide: true, default: 'web' } },
        handler: async (args, _ctx, forward) =>
          `${await forward(args)} / ${await forward({ ...args, limit: 1 })}`,
      }) as never,
    );
    await server.listen({ http: { port: 0, host: '127.0.0.1' } });
    client = await connect(`http://127.0.0.1:${server.addresses.http?.port}/mcp`, { protocol: 'modern' });
  });
  after(async () => {
    await client.close();
    await server.close();
  });

  test('publishes the derived schema', async () => {
    const find = (await client.listTools()).find((tool) => tool.name === 'find');
    assert.equal(find?.description, 'Finds documents');
    assert.deepEqual(find?.inputSchema, {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What to look for' },
        limit: { type: 'integer', default: 5 },
      },
      required: ['query'],
      additionalProperties: false,
    });
  });

  test('calls reach the original with its own names, defaults and hidden values', async () => {
    const result = await client.callTool('find', { query: 'mcp' });
    assert.deepEqual(result.content, [{ type: 'text', text: 'q=mcp limit=5 index=docs' }]);
    const refused = await client.callTool('find', { query: 'mcp', index: 'secret' });
    assert.equal(refused.isError, true, 'a hidden argument cannot be sent');
  });

  test('a custom handler forwards', async () => {
    const result = await client.callTool('find_twice', { q: 'x' });
    assert.deepEqual(result.content, [
      { type: 'text', text: 'q=x limit=- index=web / q=x limit=1 index=web' },
    ]);
  });

  test('mistakes are refused when the tool is made', () => {
    assert.throws(
      () => transformTool(search, { args: { index: { hide: true } } }),
      /hidden argument needs a default/,
    );
    assert.throws(() => transformTool(search, { args: { nope: { rename: 'x' } } }), /no argument "nope"/);
    assert.throws(() => transformTool(search, { args: { q: { rename: 'limit' } } }), /already taken/);
    assert.throws(() => transformTool(search, { nme: 'x' } as never), /unknown option "nme"/);
    assert.throws(
      () => transformTool({ ...search, inputSchema: { '~standard': { version: 1 } } } as never, {}),
      /only a JSON Schema inputSchema can be transformed/,
    );
  });
});
