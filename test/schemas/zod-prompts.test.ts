/**
 * Prompt arguments declared with zod: published as the argument list the schema describes, checked
 * by zod (its message, naming the argument, in the -32602 error), and `get` receives zod's output.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { McpServer } from '../../lib/index.js';

describe('a prompt whose arguments are a zod schema', () => {
  let mcp: McpServer;
  let client: LegacyClient;
  before(async () => {
    mcp = new McpServer({ name: 'weft-zod-prompts', version: '0.0.0' });
    mcp.prompt({
      name: 'review',
      description: 'Asks for a review of a file, at a given depth.',
      arguments: z.object({
        file: z.string().min(1).describe('The file to review'),
        depth: z
          .string()
          .regex(/^[1-5]$/, 'depth must be a digit from 1 to 5')
          .transform(Number)
          .optional(),
      }),
      // `depth` is a number here: zod's output, not the string the client sent.
      get: ({ file, depth }) => `Review ${file} at depth ${(depth ?? 2) * 10}`,
    });
    await mcp.listen({ http: { port: 0, host: '127.0.0.1' } });
    client = new LegacyClient({ name: 'weft-zod-prompts-test', version: '1.0.0' });
    await client.connect(new LegacyHttp(new URL(`http://127.0.0.1:${mcp.addresses.http!.port}/mcp`)));
  });
  after(async () => {
    await client.close();
    await mcp.close();
  });

  it('publishes the arguments the schema describes', async () => {
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts[0]?.arguments, [
      { name: 'file', description: 'The file to review', required: true },
      { name: 'depth' },
    ]);
  });

  it('hands get the schema output', async () => {
    const result = await client.getPrompt({ name: 'review', arguments: { file: 'a.ts', depth: '3' } });
    assert.deepEqual(result.messages[0]?.content, { type: 'text', text: 'Review a.ts at depth 30' });
    const defaulted = await client.getPrompt({ name: 'review', arguments: { file: 'a.ts' } });
    assert.deepEqual(defaulted.messages[0]?.content, { type: 'text', text: 'Review a.ts at depth 20' });
  });

  it('refuses what the schema refuses, with its message and the argument name', async () => {
    await assert.rejects(
      client.getPrompt({ name: 'review', arguments: { file: 'a.ts', depth: '9' } }),
      (error: Error) => {
        assert.match(error.message, /-32602/);
        assert.match(
          error.message,
          /Invalid arguments for prompt "review": "depth": depth must be a digit from 1 to 5/,
        );
        return true;
      },
    );
  });

  it('refuses at registration an argument that is not a string', () => {
    assert.throws(
      () => mcp.prompt({ name: 'count', arguments: z.object({ n: z.number() }), get: () => '' }),
      /argument "n" must be a string \(prompt arguments are strings on the wire\)/,
    );
  });
});
