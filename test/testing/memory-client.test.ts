/**
 * `weft/testing`: weft's client connected to a server in the same process, in both eras: listing,
 * inline and pool calls, progress, a question to the user answered by the client's handler (a
 * server request in the legacy era, a multi-round request in the modern one), a cancel that
 * really stops a pool thread, and the principal the server sees.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { McpServer, makePrincipal } from '../../lib/index.js';
import { connectInMemory, MemoryClientTransport } from '../../lib/testing/index.js';
import { askBlocking, busy, progress } from '../support/fixture-tools.js';

const seenPrincipals: (string | undefined)[] = [];
const server = new McpServer({ name: 'memory', version: '1', pool: { maxThreads: 1 } })
  .tool({
    name: 'add',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'integer' }, b: { type: 'integer' } },
      required: ['a', 'b'],
    },
    handler: ({ a, b }) => ({ sum: a + b }),
  })
  .tool(progress)
  .tool(busy)
  .tool(askBlocking)
  .use({
    onCallTool: (ctx, next) => {
      seenPrincipals.push(ctx.principal?.subject);
      return next();
    },
  });
after(() => server.close());

const text = (result: Record<string, unknown>) =>
  (result.content as { text?: string }[] | undefined)?.[0]?.text;

for (const protocol of ['legacy', 'modern'] as const) {
  describe(`connectInMemory (${protocol})`, () => {
    it('lists and calls tools, inline and on the pool, with progress', async () => {
      const client = await connectInMemory(server, { protocol });
      try {
        assert.equal(client.era, protocol);
        const names = (await client.listTools()).map((tool) => tool.name);
        assert.deepEqual(names, ['add', 'ask_blocking', 'busy', 'progress']);
        const sum = await client.callTool('add', { a: 2, b: 40 });
        assert.equal(text(sum), JSON.stringify({ sum: 42 }));
        const steps: unknown[] = [];
        const done = await client.callTool(
          'progress',
          { steps: 3 },
          { onprogress: (p) => steps.push(p.progress) },
        );
        assert.equal(text(done), '3 steps');
        assert.deepEqual(steps, [1, 2, 3]);
        const invalid = await client.callTool('add', { a: 'two', b: 1 });
        assert.equal(invalid.isError, true);
        assert.match(text(invalid) ?? '', /"a" must be of type integer/);
      } finally {
        await client.close();
      }
    });

    it("answers the server's question with the client's handler", async () => {
      const client = await connectInMemory(server, {
        protocol,
        onElicitation: (params) => {
          assert.equal(params.message, 'Your name?');
          return { action: 'accept', content: { name: 'Ada' } };
        },
      });
      try {
        assert.equal(text(await client.callTool('ask_blocking', {})), 'accept: {"name":"Ada"}');
      } finally {
        await client.close();
      }
    });

    it('cancels a pool call when its signal aborts, freeing the thread', async () => {
      const client = await connectInMemory(server, { protocol });
      try {
        const abort = new AbortController();
        const call = client.callTool('busy', { ms: 30_000 }, { signal: abort.signal });
        await new Promise((resolve) => setTimeout(resolve, 200));
        abort.abort();
        await assert.rejects(call);
        const deadline = Date.now() + 10_000;
        while (server.stats.freeThreads < 1 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        assert.equal(server.stats.freeThreads, 1, 'the runaway thread was stopped');
      } finally {
        await client.close();
      }
    });

    it('calls as the principal it was given', async () => {
      const client = await connectInMemory(server, {
        protocol,
        principal: makePrincipal({ subject: 'tester' }),
      });
      try {
        seenPrincipals.length = 0;
        await client.callTool('add', { a: 1, b: 1 });
        assert.deepEqual(seenPrincipals, ['tester']);
      } finally {
        await client.close();
      }
    });
  });
}

describe('MemoryClientTransport', () => {
  it('refuses unknown options', () => {
    assert.throws(
      () => new MemoryClientTransport(server, { principle: {} } as never),
      /unknown option "principle"/,
    );
  });
});
