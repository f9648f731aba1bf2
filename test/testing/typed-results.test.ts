/**
 * The results a user's own tests get from `weft-mcp/testing` and `weft-mcp/client` are typed: this
 * file is itself the type test. It compiles with the project (strict, no casts) only while
 * `callTool` answers a `ToolCallResult` (content blocks, structuredContent, isError) and `onprogress`
 * hears a `ProgressUpdate`; with bare records, `result.content[0]` is TS18046 ("of type unknown").
 * Running it checks that the values behind the types are the ones the server sent.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { ContentBlock, ProgressUpdate, ToolCallResult } from '../../lib/client/index.js';
import { McpServer } from '../../lib/index.js';
import { connectInMemory } from '../../lib/testing/index.js';

const server = new McpServer({ name: 'typed', version: '1' })
  .tool({
    name: 'square',
    inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    outputSchema: { type: 'object', properties: { square: { type: 'number' } }, required: ['square'] },
    handler: ({ n }) => ({ square: n * n }),
  })
  .tool({
    name: 'count',
    inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    handler: async ({ n }, ctx) => {
      for (let step = 1; step <= n; step++) ctx.progress(step, n, `step ${step}`);
      return 'counted';
    },
  })
  .tool({
    name: 'refuse',
    inputSchema: { type: 'object' },
    handler: () => ({ content: [{ type: 'text', text: 'no' }], isError: true }),
  });
after(() => server.close());

/** What a user writes: the text of a result, narrowed by the block's type, with no cast. */
function firstText(result: ToolCallResult): string | undefined {
  const block: ContentBlock | undefined = result.content[0];
  if (block?.type !== 'text') return undefined;
  // @ts-expect-error a text block has no `data` (the union is real, not `any`)
  void block.data;
  return block.text;
}

describe('typed results of callTool', () => {
  it('gives content blocks, structuredContent and isError their MCP types', async () => {
    const client = await connectInMemory(server);
    const squared = await client.callTool('square', { n: 3 });
    const square: unknown = squared.structuredContent?.square;
    assert.equal(square, 9);
    assert.equal(firstText(squared), '{"square":9}');
    const isError: boolean | undefined = squared.isError;
    assert.equal(isError, undefined);
    const refused = await client.callTool('refuse');
    assert.equal(refused.isError, true);
    assert.equal(firstText(refused), 'no');
    await client.close();
  });

  it('hands onprogress a ProgressUpdate', async () => {
    const client = await connectInMemory(server, { protocol: 'modern' });
    const seen: string[] = [];
    const result = await client.callTool(
      'count',
      { n: 3 },
      {
        onprogress: (update: ProgressUpdate) => {
          const fraction: number = update.progress / (update.total ?? 1);
          seen.push(`${fraction.toFixed(2)} ${update.message ?? ''}`);
        },
      },
    );
    assert.equal(firstText(result), 'counted');
    assert.deepEqual(seen, ['0.33 step 1', '0.67 step 2', '1.00 step 3']);
    await client.close();
  });
});
